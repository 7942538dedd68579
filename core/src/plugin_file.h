/*
 * core/src/plugin_file.h — what a plugin file is, read before dlopen (internal).
 */
#ifndef EDDY_PLUGIN_FILE_H
#define EDDY_PLUGIN_FILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct eddy_plugin_file_facts {
    uint64_t file_size; /* bytes */
    uint64_t load_end;  /* where the file contents of the loadable segments end; past file_size: cut short */
    /* The sanitizer ("AddressSanitizer", "ThreadSanitizer", ...) whose runtime the file needs (DT_NEEDED)
     * and this process has not loaded, and that library's name; NULL and "" when there is none. Such a
     * runtime aborts a process that dlopens it. */
    const char *sanitizer;
    char needed[256];
    /* 1: a regular file that does not begin with the ELF magic (a script, a source or text file named
     * eddy_*.so, an empty file): no shared object at all. */
    int not_elf;
} eddy_plugin_file_facts;

/* Reads the program headers and needed libraries of the ELF shared object at `path`: 0 and *f filled
 * (not_elf set, nothing else, for a readable file that is no ELF object), or -1 when the file cannot
 * be read as an ELF object of this machine (dlopen then gives its own reason). Never maps the file. */
int eddy_plugin_file_read(const char *path, eddy_plugin_file_facts *f);

/* The longest exported name eddy_plugin_file_exports keeps, with its terminator. */
#define EDDY_PLUGIN_FILE_NAME_MAX 128

/* The symbols the ELF shared object at `path` exports (its defined dynamic symbols of global or weak
 * binding and default or protected visibility, as dlsym finds them) that `keep` accepts: the first
 * `max` names into `names` (each cut to EDDY_PLUGIN_FILE_NAME_MAX - 1 bytes), and the count of all as
 * the result. 0 when the file cannot be read as an ELF object of this machine or has no section table.
 * Reads at most 64 Ki symbols and 4 MiB of names; never maps the file. */
size_t eddy_plugin_file_exports(const char *path, int (*keep)(const char *name),
                                char (*names)[EDDY_PLUGIN_FILE_NAME_MAX], size_t max);

#endif /* EDDY_PLUGIN_FILE_H */
