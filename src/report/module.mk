# src/report/module.mk — embeds the page assets (ours and the pinned uPlot) into
# the binary as $(BUILD)/gen/report_assets.h.
#
# uPlot comes from npm via scripts/fetch-web-assets.sh (pinned version + sha256)
# into .cache/web-assets/; without it the build fails with that script's message.

REPORT_WEB      := .cache/web-assets
REPORT_UPLOT_V  := 1.6.32
REPORT_STAMP    := $(BUILD)/gen/.uplot-$(REPORT_UPLOT_V).stamp
REPORT_OWN      := src/report/assets/app.js src/report/assets/compare.js src/report/assets/jobparts.js \
                   src/report/assets/app.css
REPORT_HDR      := $(BUILD)/gen/report_assets.h

$(REPORT_STAMP): scripts/fetch-web-assets.sh
	@mkdir -p $(dir $@)
	bash scripts/fetch-web-assets.sh $(REPORT_WEB)
	@touch $@

$(REPORT_HDR): $(REPORT_STAMP) $(REPORT_OWN) src/report/embed.sh
	@mkdir -p $(dir $@)
	sh src/report/embed.sh $@ uplot_js $(REPORT_WEB)/uPlot.iife.min.js uplot_css $(REPORT_WEB)/uPlot.min.css \
		app_js src/report/assets/app.js compare_js src/report/assets/compare.js \
		jobparts_js src/report/assets/jobparts.js app_css src/report/assets/app.css

GEN_DEPS += $(REPORT_HDR)

# Browser tests need node + playwright-core; tests/browser/lib.sh installs it on first use.

# The fuzz target (fuzz_report.c) is built by the top Makefile's `make fuzz`.
