/* report/page.c — the one HTML page behind `genperf ui` and `genperf report`.
 *
 * Owns nothing: the assets are static arrays generated at build time into
 * $(BUILD)/gen/report_assets.h (src/report/module.mk), the page is appended
 * to the caller's buffer. The markup itself holds no data: the script fills
 * it from the JSON endpoints (UI) or from the embedded bundle (report).
 */
#include "report/report.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/version.h"
#include "report_assets.h"

#include <string.h>

struct asset {
    const char *name;
    const unsigned char *data;
    size_t len;
    const char *ctype;
};

static const struct asset assets[] = {
    {"app.js", gp_asset_app_js, gp_asset_app_js_len, "text/javascript; charset=utf-8"},
    {"compare.js", gp_asset_compare_js, gp_asset_compare_js_len, "text/javascript; charset=utf-8"},
    {"jobparts.js", gp_asset_jobparts_js, gp_asset_jobparts_js_len, "text/javascript; charset=utf-8"},
    {"app.css", gp_asset_app_css, gp_asset_app_css_len, "text/css; charset=utf-8"},
    {"uPlot.min.js", gp_asset_uplot_js, gp_asset_uplot_js_len, "text/javascript; charset=utf-8"},
    {"uPlot.min.css", gp_asset_uplot_css, gp_asset_uplot_css_len, "text/css; charset=utf-8"},
};

const unsigned char *gp_page_asset(const char *name, size_t *len, const char **ctype)
{
    for (size_t i = 0; i < sizeof assets / sizeof assets[0]; i++) {
        if (!strcmp(assets[i].name, name)) {
            *len = assets[i].len;
            if (ctype)
                *ctype = assets[i].ctype;
            return assets[i].data;
        }
    }
    return NULL;
}

int gp_page_build(struct gp_buf *out, enum gp_page_mode mode, const char *title, const char *bundle)
{
    int rc = 0;
    rc |= gp_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                           "<meta name=\"generator\" content=\"genperf " GP_VERSION "\">\n<title>");
    rc |= gp_html_escape(out, title, strlen(title));
    rc |= gp_buf_puts(out, "</title>\n");
    if (mode == GP_PAGE_UI) {
        rc |= gp_buf_puts(out, "<link rel=\"stylesheet\" href=\"/assets/uPlot.min.css\">\n"
                               "<link rel=\"stylesheet\" href=\"/assets/app.css\">\n");
    } else {
        rc |= gp_buf_puts(out, "<style>\n");
        rc |= gp_buf_append(out, gp_asset_uplot_css, gp_asset_uplot_css_len);
        rc |= gp_buf_append(out, gp_asset_app_css, gp_asset_app_css_len);
        rc |= gp_buf_puts(out, "</style>\n");
    }
    rc |= gp_buf_puts(out, "</head><body>\n<header class=\"gp-top\"><h1>genperf</h1>"
                           "<a href=\"#/\">Benchmarks</a>");
    if (mode == GP_PAGE_REPORT) {
        rc |= gp_buf_puts(out, "<span class=\"gp-meta\">");
        rc |= gp_html_escape(out, title, strlen(title));
        rc |= gp_buf_puts(out, "</span>");
    }
    rc |= gp_buf_puts(out, "</header>\n<main id=\"gp-main\"><noscript>This page needs JavaScript "
                           "to draw its tables and charts.</noscript></main>\n");
    if (mode == GP_PAGE_REPORT && bundle) {
        rc |= gp_buf_puts(out, "<script type=\"application/json\" id=\"gp-bundle\">");
        rc |= gp_json_script_escape(out, bundle, strlen(bundle));
        rc |= gp_buf_puts(out, "</script>\n");
    }
    if (mode == GP_PAGE_UI) {
        rc |= gp_buf_puts(out, "<script src=\"/assets/uPlot.min.js\"></script>\n"
                               "<script src=\"/assets/app.js\"></script>\n"
                               "<script src=\"/assets/compare.js\"></script>\n"
                               "<script src=\"/assets/jobparts.js\"></script>\n");
    } else {
        rc |= gp_buf_puts(out, "<script>\n");
        rc |= gp_buf_append(out, gp_asset_uplot_js, gp_asset_uplot_js_len);
        rc |= gp_buf_puts(out, "\n</script>\n<script>\n");
        rc |= gp_buf_append(out, gp_asset_app_js, gp_asset_app_js_len);
        rc |= gp_buf_puts(out, "\n</script>\n<script>\n");
        rc |= gp_buf_append(out, gp_asset_compare_js, gp_asset_compare_js_len);
        rc |= gp_buf_puts(out, "\n</script>\n<script>\n");
        rc |= gp_buf_append(out, gp_asset_jobparts_js, gp_asset_jobparts_js_len);
        rc |= gp_buf_puts(out, "\n</script>\n");
    }
    rc |= gp_buf_puts(out, "</body></html>\n");
    return rc ? -GP_ENOMEM : 0;
}
