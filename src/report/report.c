/* report/report.c — writes one self-contained HTML report.
 *
 * Owns nothing past the call. The file holds the page (uPlot and the app
 * inline) and the JSON bundle of endpoint answers, so it opens from disk with
 * no network and no server; it is written atomically (core/fsutil.h).
 */
#include "report/report.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"

#include <stdlib.h>
#include <string.h>

int gp_report_write(const char *path, const char *title, json_t *bundle, struct gp_error *err)
{
    char *js = json_dumps(bundle, JSON_COMPACT | JSON_ENSURE_ASCII);
    if (!js)
        return gp_err(err, GP_ENOMEM, "out of memory serialising the report data");
    struct gp_buf page = {0};
    int rc = gp_page_build(&page, GP_PAGE_REPORT, title, js);
    free(js);
    if (rc < 0) {
        gp_buf_free(&page);
        return gp_err(err, GP_ENOMEM, "out of memory building %s", path);
    }
    rc = gp_write_file_atomic(path, page.data, page.len, err);
    gp_buf_free(&page);
    if (rc < 0)
        return gp_err_prefix(err, "genperf report -o %s", path);
    return 0;
}
