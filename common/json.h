/* The one JSON string writer: every program that writes JSON lines quotes
 * its strings here, so that names with quotes, backslashes or control
 * characters stay valid JSON. And the one reader of those lines: flat
 * objects written by our own tools, so a key is found by its quoted name. */
#ifndef SYNCWAY_JSON_H
#define SYNCWAY_JSON_H

#include <stdio.h>

/* Writes s as a quoted JSON string. */
void sw_json_string(FILE *f, const char *s);

/* Where the value of "key" starts in line, or NULL. */
const char *sw_json_find(const char *line, const char *key);

#endif
