# Plugin outputs, component ids across search paths, signals while loading.
