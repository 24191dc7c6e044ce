# runner/: recipes are data files under recipes/, embedded at build time.
RECIPES := $(sort $(wildcard recipes/*.yaml recipes/*.options))
$(BUILD)/gen/recipes.h: $(RECIPES) src/runner/embed.sh
	@mkdir -p $(dir $@)
	sh src/runner/embed.sh $(RECIPES) > $@.tmp && mv $@.tmp $@
GEN_DEPS += $(BUILD)/gen/recipes.h
