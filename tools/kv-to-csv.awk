# kv-to-csv.awk: lines of key=value words (`eddy bench` lines, tools/mpi-bench.sh, tools/mpi-ab.sh) to
# CSV; the columns in the order the keys first appear, empty where a line lacks a key.
{ for (i = 1; i <= NF; ++i) if (split($i, kv, "=") == 2) { if (!(kv[1] in col)) { col[kv[1]] = ++nc; name[nc] = kv[1] }
    v[NR, kv[1]] = kv[2] } }
END { for (c = 1; c <= nc; ++c) printf "%s%s", name[c], c < nc ? "," : "\n"
      for (r = 1; r <= NR; ++r) for (c = 1; c <= nc; ++c) printf "%s%s", v[r, name[c]], c < nc ? "," : "\n" }
