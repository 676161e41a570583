/**
 * `text` as a literal piece of a LIKE pattern whose escape character is "!": its own %, _ and !
 * match only themselves. The query must name the escape in an ESCAPE '!' clause: SQLite has no
 * default escape, and PostgreSQL and MariaDB read a backslash in a string literal differently.
 */
export function escapeLike(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}
