#!/usr/bin/env python3
"""ABI guard: the layout of every public struct, enum, integer and string constant of the SDK headers.

    abi_layout.py probe-source INCLUDE_DIR OUT.c   writes a C program that prints the actual layout
    abi_layout.py check  --recorded FILE --probe EXE  compares it with the recorded table
    abi_layout.py record --recorded FILE --probe EXE  (re)records the table of the current ABI version

The recorded table (tests/sdk/abi_layout.txt) has one section per ABI version and pointer size,
"[abi MAJOR.MINOR pointer N]". `check` fails when the layout differs from the section of the version
in core/include/eddy/plugin.h, when no section exists for that version, and when a minor version is
not a compatible extension of an earlier minor of the same major (plugin.h: a minor bump may only
append members at the end of structs that begin with a `size` member, and add enum values and
functions). To re-record after a deliberate ABI change and version bump:

    cmake --build BUILD --target eddy_abi_record
"""
import os
import re
import subprocess
import sys

# --- parsing the public headers (they follow a plain style: typedef struct/enum NAME { ... } NAME;) ---


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def split_top(text, sep):
    """Splits on `sep` outside (), [] and {}."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def braced(text, start):
    """Index just past the brace that closes the one at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError("unbalanced braces")


def members_of(body):
    names = []
    for decl in split_top(body, ";"):
        decl = " ".join(decl.split())
        fn = re.search(r"\(\s*\*\s*(?:const\s+)?(\w+)\s*\)\s*\(", decl)
        if fn:
            names.append(fn.group(1))
            continue
        for piece in split_top(decl, ","):
            piece = re.sub(r"\[[^\]]*\]", "", piece).strip()
            ids = re.findall(r"[A-Za-z_]\w*", piece)
            if not ids:
                raise ValueError("cannot parse member declaration: " + decl)
            names.append(ids[-1])
    return names


def strip_inline_functions(text):
    """Removes the bodies of `static inline` functions (grid.h, kernels.h, particles.h): code, not
    layout, and a body may hold anything a declaration pattern could mistake for one."""
    out, pos = [], 0
    for m in re.finditer(r"\bstatic\s+inline\b[^;{}]*\{", text):
        if m.start() < pos:
            continue
        out.append(text[pos:m.start()])
        pos = braced(text, m.end() - 1)
    out.append(text[pos:])
    return "".join(out)


def parse_headers(include_dir):
    """Structs (`typedef struct N {...} N;` and `struct N {...};`), enum values (named and anonymous
    enums; values such as `1u << 0` are printed by the compiler), integer and string constants."""
    structs, enums, consts = [], [], []
    for name in sorted(os.listdir(include_dir)):
        if not name.endswith(".h"):
            continue
        raw = open(os.path.join(include_dir, name), encoding="utf-8").read()
        text = strip_inline_functions(strip_comments(raw))
        for m in re.finditer(r"(typedef\s+)?\bstruct\s+(\w+)\s*\{", text):
            end = braced(text, m.end() - 1)
            if m.group(1):
                tail = re.match(r"\s*(\w+)\s*;", text[end:])
                if not tail:
                    continue
                struct = tail.group(1)
            else:
                # `struct eddy_host { ... };` after `typedef struct eddy_host eddy_host;`
                if not re.match(r"\s*;", text[end:]):
                    continue
                struct = "struct " + m.group(2)
            structs.append((struct, members_of(text[m.end():end - 1])))
        for m in re.finditer(r"(?:typedef\s+)?enum\s*(\w*)\s*\{", text):
            end = braced(text, m.end() - 1)
            tag = m.group(1) or "anonymous_" + name[:-2]
            values = [re.match(r"\s*(\w+)", e).group(1) for e in split_top(text[m.end():end - 1], ",")]
            enums.append((tag, values))
        for m in re.finditer(r"^\s*#\s*define\s+(EDDY_\w+)\s+\(?(-?\d+)\)?\s*$", text, flags=re.M):
            if m.group(1) not in ("EDDY_ABI_MAJOR", "EDDY_ABI_MINOR"):
                consts.append((m.group(1), "integer"))
        # Interface ids and the entry symbol's name are ABI too.
        for m in re.finditer(r'^\s*#\s*define\s+(EDDY_\w+)\s+"[^"\\]*"\s*$', text, flags=re.M):
            consts.append((m.group(1), "string"))
    return structs, enums, consts


def probe_source(include_dir, out):
    structs, enums, consts = parse_headers(include_dir)
    lines = [
        "/* Generated by tests/sdk/abi_layout.py from the public headers: prints their ABI layout. */",
        "#include <eddy/eddy.h>",
        "#include <stddef.h>",
        "#include <stdio.h>",
        "",
        "int main(void)",
        "{",
        '    printf("abi %d.%d pointer %zu\\n", EDDY_ABI_MAJOR, EDDY_ABI_MINOR, sizeof(void *));',
        '    printf("const sizeof(eddy_real) %zu\\n", sizeof(eddy_real));',
    ]
    for s, members in structs:
        label = s.replace("struct ", "")  # the table names a struct by its tag either way
        lines.append('    printf("struct %s size %%zu align %%zu\\n", sizeof(%s), _Alignof(%s));' % (label, s, s))
        for mb in members:
            lines.append('    printf("member %s.%s offset %%zu size %%zu\\n", offsetof(%s, %s), '
                         'sizeof(((%s *)0)->%s));' % (label, mb, s, mb, s, mb))
    for tag, values in enums:
        for v in values:
            lines.append('    printf("enum %s.%s %%lld\\n", (long long)%s);' % (tag, v, v))
    for c, kind in consts:
        if kind == "string":
            lines.append('    printf("const %s \\"%%s\\"\\n", %s);' % (c, c))
        else:
            lines.append('    printf("const %s %%lld\\n", (long long)(%s));' % (c, c))
    lines += ["    return 0;", "}", ""]
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    os.replace(tmp, out)


# --- the recorded table ---


def run_probe(exe):
    out = subprocess.run([exe], check=True, stdout=subprocess.PIPE, universal_newlines=True).stdout
    lines = [l for l in out.splitlines() if l.strip()]
    m = re.match(r"abi (\d+)\.(\d+) pointer (\d+)$", lines[0])
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))), lines[1:]


def read_table(path):
    """{(major, minor, pointer): [lines]} and the file's header comment."""
    sections, header, key = {}, [], None
    if os.path.exists(path):
        for line in open(path, encoding="utf-8").read().splitlines():
            m = re.match(r"\[abi (\d+)\.(\d+) pointer (\d+)\]$", line.strip())
            if m:
                key = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
                sections[key] = []
            elif key is None:
                header.append(line)
            elif line.strip() and not line.startswith("#"):
                sections[key].append(line.strip())
    return sections, header


def as_dict(lines):
    d = {}
    for line in lines:
        kind, rest = line.split(" ", 1)
        name, value = rest.split(" ", 1)
        d[(kind, name)] = value
    return d


def describe(kind, name):
    return {"struct": "struct " + name, "member": "member " + name, "enum": "enum value " + name,
            "const": "constant " + name}[kind]


def differences(old, new):
    o, n = as_dict(old), as_dict(new)
    out = []
    for k in o:
        if k not in n:
            out.append("%s: removed (was %s)" % (describe(*k), o[k]))
        elif o[k] != n[k]:
            out.append("%s: was %s, now %s" % (describe(*k), o[k], n[k]))
    for k in n:
        if k not in o:
            out.append("%s: new (%s)" % (describe(*k), n[k]))
    return out


def minor_violations(old, new):
    """What a minor bump from `old` to `new` may not do (plugin.h's versioning rule)."""
    o, n = as_dict(old), as_dict(new)
    bad = []
    for k, v in o.items():
        if k not in n:
            bad.append("%s was removed" % describe(*k))
        elif v != n[k] and k[0] != "struct":
            bad.append("%s changed from %s to %s" % (describe(*k), v, n[k]))
    for k, v in n.items():
        if k[0] == "struct" and k in o and v != o[k]:
            if not n.get(("member", k[1] + ".size"), "").startswith("offset 0 "):
                bad.append("struct %s grew (%s -> %s) but does not begin with a `size` member"
                           % (k[1], o[k], v))
        if k[0] == "member" and k not in o:
            struct = k[1].split(".")[0]
            old_size = o.get(("struct", struct))
            if old_size is None:
                continue  # a new struct
            old_bytes = int(old_size.split()[1])
            if int(v.split()[1]) < old_bytes:
                bad.append("new member %s is not appended at the end (offset %s < old size %d)"
                           % (k[1], v.split()[1], old_bytes))
    return bad


def hint(table):
    return ("bump EDDY_ABI_MAJOR / EDDY_ABI_MINOR in core/include/eddy/plugin.h (minor: only members "
            "appended to structs that begin with `size`, new enum values, new functions; anything else: "
            "major) and re-record the table with `cmake --build <build> --target eddy_abi_record` "
            "(or: python3 tests/sdk/abi_layout.py record --recorded %s --probe <build>/bin/sdk_abi_probe)"
            % table)


def check(table, exe):
    key, actual = run_probe(exe)
    sections, _ = read_table(table)
    if not any(k[2] == key[2] for k in sections):
        print("abi_layout: SKIP: no layout recorded for pointer size %d" % key[2])
        return 77
    version = "%d.%d" % key[:2]
    changed, incompatible = [], []
    if key not in sections:
        changed.append("no layout recorded for ABI %s (pointer size %d); recorded: %s" % (
            version, key[2], ", ".join("%d.%d" % k[:2] for k in sorted(sections) if k[2] == key[2])))
    else:
        changed.extend(differences(sections[key], actual))
    for k in sorted(sections):
        if k[0] == key[0] and k[1] < key[1] and k[2] == key[2]:
            for v in minor_violations(sections[k], actual):
                incompatible.append("ABI %s is not a compatible minor extension of %d.%d: %s" % (
                    version, k[0], k[1], v))
    if changed:
        print("abi_layout: the public ABI layout differs from the table recorded for ABI %s:" % version)
        for f in changed:
            print("  " + f)
        print("abi_layout: the ABI changed without an ABI version change: " + hint(table))
    if incompatible:
        print("abi_layout: a minor version may only append members to structs that begin with `size` "
              "and add enum values, constants and functions:")
        for f in incompatible:
            print("  " + f)
        print("abi_layout: this change needs a major version: set EDDY_ABI_MAJOR to %d and EDDY_ABI_MINOR "
              "to 0 in core/include/eddy/plugin.h and re-record with `cmake --build <build> --target "
              "eddy_abi_record`" % (key[0] + 1))
    if changed or incompatible:
        return 1
    n = sum(1 for l in actual if l.startswith("struct "))
    print("abi_layout: ABI %s: %d structs, %d members, %d enum values, %d constants match %s" % (
        version, n, sum(1 for l in actual if l.startswith("member ")),
        sum(1 for l in actual if l.startswith("enum ")),
        sum(1 for l in actual if l.startswith("const ")), table))
    return 0


def record(table, exe):
    key, actual = run_probe(exe)
    sections, header = read_table(table)
    sections[key] = actual
    if not any(l.strip() for l in header):
        header = [
            "# ABI guard: size, alignment and member offsets of every public struct of core/include/eddy,",
            "# and the values of its enums, integer and string constants, one section per ABI version and",
            "# pointer size. Checked by the test sdk_abi_layout (tests/sdk/abi_layout.py). Do not edit by hand:",
            "# after bumping the ABI version in core/include/eddy/plugin.h, re-record with",
            "#     cmake --build <build> --target eddy_abi_record",
            "",
        ]
    out = list(header)
    for k in sorted(sections):
        out.append("[abi %d.%d pointer %d]" % k)
        out.extend(sections[k])
        out.append("")
    with open(table + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    os.replace(table + ".tmp", table)
    print("abi_layout: recorded ABI %d.%d (pointer size %d): %d lines in %s" % (key + (len(actual), table)))
    return 0


def main(argv):
    if len(argv) == 3 and argv[0] == "probe-source":
        probe_source(argv[1], argv[2])
        return 0
    if len(argv) == 5 and argv[0] in ("check", "record") and argv[1] == "--recorded" and argv[3] == "--probe":
        return (check if argv[0] == "check" else record)(argv[2], argv[4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
