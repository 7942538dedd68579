/*
 * What a plugin file is, read before dlopen (plugin_file.h).
 *
 * Two kinds of file do not fail dlopen cleanly but bring the process down, so one of them in a plugin
 * folder would end every command, `eddy list` included:
 * - a file cut short (an interrupted copy or install): glibc maps the segments the headers describe
 *   and faults (SIGBUS) on the pages past the end of the file;
 * - a shared object linked with -fsanitize=address (gcc does so when the flag reaches the link): it
 *   lists libasan as needed, and that runtime's initializer aborts a process that did not start with
 *   it ("ASan runtime does not come first in initial library list").
 * The program headers and the needed libraries are read with pread, so that such a file can be refused
 * like any other bad plugin. Only files of this machine's class and byte order are read (dlopen refuses
 * others with its own reason); every offset is checked against the file.
 */
#include "plugin_file.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if UINTPTR_MAX > 0xffffffffu
typedef Elf64_Ehdr elf_ehdr;
typedef Elf64_Phdr elf_phdr;
typedef Elf64_Dyn elf_dyn;
typedef Elf64_Shdr elf_shdr;
typedef Elf64_Sym elf_sym;
#define EDDY_ELF_CLASS ELFCLASS64
#else
typedef Elf32_Ehdr elf_ehdr;
typedef Elf32_Phdr elf_phdr;
typedef Elf32_Dyn elf_dyn;
typedef Elf32_Shdr elf_shdr;
typedef Elf32_Sym elf_sym;
#define EDDY_ELF_CLASS ELFCLASS32
#endif

/* Runtimes that abort a process they were not loaded into from its start, with the symbol a process
 * that has them defines. UBSan's standalone runtime loads late without harm and is not listed. */
static const struct {
    const char *prefix; /* of the needed library's file name */
    const char *symbol;
    const char *sanitizer;
} late_load_aborts[] = {
    {"libasan.so", "__asan_init", "AddressSanitizer"},
    {"libclang_rt.asan", "__asan_init", "AddressSanitizer"},
    {"libtsan.so", "__tsan_init", "ThreadSanitizer"},
    {"libclang_rt.tsan", "__tsan_init", "ThreadSanitizer"},
    {"libhwasan.so", "__hwasan_init", "HWAddressSanitizer"},
    {"libclang_rt.hwasan", "__hwasan_init", "HWAddressSanitizer"},
};

static int read_at(int fd, void *buf, size_t size, uint64_t offset, uint64_t file_size)
{
    if (offset > file_size || size > file_size - offset) return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(fd, (char *)buf + done, size - done, (off_t)(offset + done));
        if (n <= 0) return -1;
        done += (size_t)n;
    }
    return 0;
}

/* An ELF header of this process's class and byte order: the only files whose tables are read here
 * (another architecture's plugin is refused by dlopen, in its own words). */
static int native_elf(const elf_ehdr *eh)
{
    const uint16_t one = 1;
    const int little = *(const unsigned char *)&one == 1;
    return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == EDDY_ELF_CLASS &&
           eh->e_ident[EI_DATA] == (little ? ELFDATA2LSB : ELFDATA2MSB);
}

/* The file offset of virtual address `vaddr` through the PT_LOAD segments, or UINT64_MAX. */
static uint64_t file_offset(const elf_phdr *ph, size_t count, uint64_t vaddr)
{
    for (size_t i = 0; i < count; ++i)
        if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr && vaddr - ph[i].p_vaddr < ph[i].p_filesz)
            return (uint64_t)ph[i].p_offset + (vaddr - ph[i].p_vaddr);
    return UINT64_MAX;
}

static const char *check_needed(const char *name, char *needed, size_t size)
{
    for (size_t k = 0; k < sizeof late_load_aborts / sizeof late_load_aborts[0]; ++k) {
        if (strncmp(name, late_load_aborts[k].prefix, strlen(late_load_aborts[k].prefix)) != 0) continue;
        if (dlsym(RTLD_DEFAULT, late_load_aborts[k].symbol)) return NULL; /* this process has it */
        size_t n = strlen(name);
        if (n >= size) n = size - 1;
        memcpy(needed, name, n);
        needed[n] = '\0';
        return late_load_aborts[k].sanitizer;
    }
    return NULL;
}

int eddy_plugin_file_read(const char *path, eddy_plugin_file_facts *f)
{
    memset(f, 0, sizeof *f);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = -1;
    elf_phdr *ph = NULL;
    elf_dyn *dyn = NULL;
    struct stat st;
    elf_ehdr eh;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) goto done;
    const uint64_t fsize = f->file_size = (uint64_t)st.st_size;
    {
        unsigned char magic[SELFMAG];
        if (fsize < SELFMAG || (!read_at(fd, magic, SELFMAG, 0, fsize) && memcmp(magic, ELFMAG, SELFMAG) != 0)) {
            f->not_elf = 1;
            rc = 0;
            goto done;
        }
    }
    if (read_at(fd, &eh, sizeof eh, 0, fsize) || !native_elf(&eh) || eh.e_phentsize != sizeof(elf_phdr) ||
        eh.e_phnum == 0)
        goto done;
    ph = malloc((size_t)eh.e_phnum * sizeof *ph);
    if (!ph) goto done;
    if (read_at(fd, ph, (size_t)eh.e_phnum * sizeof *ph, eh.e_phoff, fsize)) {
        f->load_end = (uint64_t)eh.e_phoff + (uint64_t)eh.e_phnum * sizeof *ph;
        rc = 0;
        goto done;
    }
    rc = 0;
    const elf_phdr *dynamic = NULL;
    for (size_t i = 0; i < eh.e_phnum; ++i) {
        if (ph[i].p_type == PT_DYNAMIC) dynamic = &ph[i];
        if (ph[i].p_type == PT_LOAD) {
            uint64_t end = (uint64_t)ph[i].p_offset + (uint64_t)ph[i].p_filesz;
            if (end < (uint64_t)ph[i].p_offset) end = UINT64_MAX;
            if (end > f->load_end) f->load_end = end;
        }
    }
    if (f->load_end > fsize) goto done; /* cut short: what the segments hold is not all there */
    if (!dynamic || dynamic->p_filesz < sizeof *dyn || dynamic->p_filesz > (1u << 20)) goto done;
    const size_t ndyn = (size_t)dynamic->p_filesz / sizeof *dyn;
    dyn = malloc(ndyn * sizeof *dyn);
    if (!dyn || read_at(fd, dyn, ndyn * sizeof *dyn, dynamic->p_offset, fsize)) goto done;
    uint64_t strtab = UINT64_MAX, strsz = 0;
    for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; ++i) {
        if (dyn[i].d_tag == DT_STRTAB) strtab = file_offset(ph, eh.e_phnum, dyn[i].d_un.d_ptr);
        if (dyn[i].d_tag == DT_STRSZ) strsz = dyn[i].d_un.d_val;
    }
    if (strtab == UINT64_MAX || strsz == 0) goto done;
    for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL && !f->sanitizer; ++i) {
        if (dyn[i].d_tag != DT_NEEDED || dyn[i].d_un.d_val >= strsz) continue;
        char name[256];
        uint64_t at = strtab + dyn[i].d_un.d_val;
        size_t len = sizeof name - 1;
        if (at >= fsize) continue;
        if (len > fsize - at) len = (size_t)(fsize - at);
        if (read_at(fd, name, len, at, fsize)) continue;
        name[len] = '\0';
        f->sanitizer = check_needed(name, f->needed, sizeof f->needed);
    }
done:
    free(dyn);
    free(ph);
    close(fd);
    return rc;
}

/* Bounds of the export scan, which only words a refusal: a plugin exports a handful of symbols, and a
 * file that claims more (damaged, or a fuzzer's) is read as far as these go and no further. */
#define EXPORT_SCAN_SYMBOLS 65536u
#define EXPORT_SCAN_STRINGS (4u << 20)
#define EXPORT_SCAN_CHUNK 256u

size_t eddy_plugin_file_exports(const char *path, int (*keep)(const char *name),
                                char (*names)[EDDY_PLUGIN_FILE_NAME_MAX], size_t max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    size_t found = 0;
    elf_shdr *sh = NULL;
    char *strings = NULL;
    struct stat st;
    elf_ehdr eh;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) goto done;
    const uint64_t fsize = (uint64_t)st.st_size;
    if (read_at(fd, &eh, sizeof eh, 0, fsize) || !native_elf(&eh) || eh.e_shentsize != sizeof(elf_shdr) ||
        eh.e_shnum == 0)
        goto done;
    /* (e_shnum is 16 bits: at most 64 Ki headers, and read_at refuses more than the file holds) */
    sh = malloc((size_t)eh.e_shnum * sizeof *sh);
    if (!sh || read_at(fd, sh, (size_t)eh.e_shnum * sizeof *sh, eh.e_shoff, fsize)) goto done;
    /* The section table, not PT_DYNAMIC: only it says how many dynamic symbols there are (the dynamic
     * section gives their count through a hash table, if at all). A stripped-to-the-bone file without
     * one goes unread, and the refusal keeps its general advice. */
    const elf_shdr *dynsym = NULL;
    for (size_t i = 0; i < eh.e_shnum && !dynsym; ++i)
        if (sh[i].sh_type == SHT_DYNSYM) dynsym = &sh[i];
    if (!dynsym || dynsym->sh_entsize != sizeof(elf_sym) || dynsym->sh_link >= eh.e_shnum) goto done;
    const elf_shdr *strtab = &sh[dynsym->sh_link];
    if (strtab->sh_type != SHT_STRTAB || strtab->sh_size == 0) goto done;
    const size_t strsz = strtab->sh_size < EXPORT_SCAN_STRINGS ? (size_t)strtab->sh_size : EXPORT_SCAN_STRINGS;
    strings = malloc(strsz + 1);
    if (!strings || read_at(fd, strings, strsz, strtab->sh_offset, fsize)) goto done;
    strings[strsz] = '\0'; /* a name that runs past what was read ends there */
    uint64_t nsym = dynsym->sh_size / sizeof(elf_sym);
    if (nsym > EXPORT_SCAN_SYMBOLS) nsym = EXPORT_SCAN_SYMBOLS;
    elf_sym chunk[EXPORT_SCAN_CHUNK];
    for (uint64_t first = 0; first < nsym; first += EXPORT_SCAN_CHUNK) {
        const size_t n = nsym - first < EXPORT_SCAN_CHUNK ? (size_t)(nsym - first) : EXPORT_SCAN_CHUNK;
        if (read_at(fd, chunk, n * sizeof *chunk, dynsym->sh_offset + first * sizeof *chunk, fsize)) break;
        for (size_t i = 0; i < n; ++i) {
            const elf_sym *s = &chunk[i];
            const unsigned bind = ELF32_ST_BIND(s->st_info), type = ELF32_ST_TYPE(s->st_info);
            const unsigned vis = ELF32_ST_VISIBILITY(s->st_other);
            /* Defined here and visible to dlsym: what the file exports, not what it imports. */
            if (s->st_shndx == SHN_UNDEF || s->st_name == 0 || s->st_name >= strsz) continue;
            if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) continue;
            if (vis != STV_DEFAULT && vis != STV_PROTECTED) continue;
            if (type == STT_SECTION || type == STT_FILE) continue;
            const char *name = strings + s->st_name;
            if (!keep(name)) continue;
            if (found < max) {
                size_t len = strlen(name);
                if (len >= EDDY_PLUGIN_FILE_NAME_MAX) len = EDDY_PLUGIN_FILE_NAME_MAX - 1;
                memcpy(names[found], name, len);
                names[found][len] = '\0';
            }
            ++found;
        }
    }
done:
    free(strings);
    free(sh);
    close(fd);
    return found;
}
