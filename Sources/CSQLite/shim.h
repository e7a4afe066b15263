#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro Swift cannot import: bind through these wrappers.
static inline int csqlite_bind_text_transient(sqlite3_stmt *s, int i, const char *p, int n) {
    return sqlite3_bind_text(s, i, p, n, SQLITE_TRANSIENT);
}
static inline int csqlite_bind_blob_transient(sqlite3_stmt *s, int i, const void *p, int n) {
    return sqlite3_bind_blob(s, i, p, n, SQLITE_TRANSIENT);
}
// sqlite3_config is variadic.
static inline int csqlite_config_single_thread(void) { return sqlite3_config(SQLITE_CONFIG_SINGLETHREAD); }
// SQLITE_STATIC is a macro too: the caller keeps the bytes alive until the next reset/rebind.
static inline int csqlite_bind_text_static(sqlite3_stmt *s, int i, const char *p, int n) {
    return sqlite3_bind_text(s, i, p, n, SQLITE_STATIC);
}
// Results copied by SQLite (SQLITE_TRANSIENT), for application-defined SQL functions.
static inline void csqlite_result_text_transient(sqlite3_context *c, const char *p, int n) {
    sqlite3_result_text(c, p, n, SQLITE_TRANSIENT);
}
// sqlite3_db_config is variadic: whether closing the last connection checkpoints the WAL into the
// database file and deletes it (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, inverted).
static inline int csqlite_checkpoint_on_close(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, on ? 0 : 1, (int *)0);
}
