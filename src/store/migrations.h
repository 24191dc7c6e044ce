/* store/migrations.h — the schema versions gp_db_open applies.
 *
 * Owns nothing: gp_store_migrations returns a static table (version order).
 * SQL text may contain @PK@, expanded per engine by db.c.
 */
#ifndef GP_STORE_MIGRATIONS_H
#define GP_STORE_MIGRATIONS_H

#include <stddef.h>

struct gp_migration {
    int version;
    const char *name;
    const char *sql;
};

const struct gp_migration *gp_store_migrations(size_t *n);

#endif
