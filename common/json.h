/* The one JSON string writer: every program that writes JSON lines quotes
 * its strings here, so that names with quotes, backslashes or control
 * characters stay valid JSON. */
#ifndef SYNCWAY_JSON_H
#define SYNCWAY_JSON_H

#include <stdio.h>

/* Writes s as a quoted JSON string. */
void sw_json_string(FILE *f, const char *s);

#endif
