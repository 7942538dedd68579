#include "csv_fields.h"

char *eddy_csv_next_field(char **cursor)
{
    char *p = *cursor;
    if (!p) return NULL;
    while (*p == ' ' || *p == '\t') ++p;
    char *start = p;
    while (*p && *p != ',') ++p;
    char *end = p;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) --end;
    *cursor = *p ? p + 1 : NULL;
    *end = '\0';
    return start;
}

size_t eddy_csv_field_count(const char *line)
{
    size_t n = 1;
    for (const char *p = line; *p; ++p) n += *p == ',';
    return n;
}
