/* The plugin_file target: the bytes as a plugin file, read by the loader's pre-dlopen check (fuzz.h). */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin_file.h"

static int any_name(const char *name)
{
    return name[0] != '\0';
}

int eddy_fuzz_plugin_file(const uint8_t *data, size_t size)
{
    eddy_fuzz_init();
    char path[4200];
    snprintf(path, sizeof path, "%s/plugin_file_%ld.so", eddy_fuzz_scratch_dir(), (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    const int written = fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !written) {
        remove(path);
        return 0;
    }
    eddy_plugin_file_facts facts;
    const int rc = eddy_plugin_file_read(path, &facts);
    /* The export scan that words a missing entry's refusal reads the section table and .dynsym. */
    char names[3][EDDY_PLUGIN_FILE_NAME_MAX];
    const size_t exported = eddy_plugin_file_exports(path, any_name, names, 3);
    remove(path);
    for (size_t i = 0; i < exported && i < 3; ++i)
        if (!memchr(names[i], '\0', sizeof names[i])) abort();
    /* What the loader relies on: a file read has its size, and a runtime named is a terminated name. */
    if (rc == 0 && facts.file_size != size) abort();
    if (rc == 0 && facts.sanitizer && (!facts.needed[0] || !memchr(facts.needed, '\0', sizeof facts.needed))) abort();
    if (getenv("EDDY_FUZZ_VERBOSE"))
        fprintf(stderr, "plugin_file: rc %d, %zu bytes, segments end at %llu%s%s\n", rc, size,
                (unsigned long long)facts.load_end, facts.sanitizer ? ", needs " : "", facts.sanitizer ? facts.needed : "");
    return 0;
}
