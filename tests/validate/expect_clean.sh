#!/bin/sh
# expect_clean.sh STATUS TEXT CMD...: tests/expect.sh STATUS TEXT CMD..., and its output holds no control
# character but tab and newline: an escape sequence that a file's key or string carried into a message
# would reach the terminal, which obeys it (clears the screen, retitles the window).
out=$(sh "$(dirname "$0")/../expect.sh" "$@" 2>&1); status=$?
printf '%s\n' "$out"
[ "$status" -eq 0 ] || exit 1
if [ "$(printf '%s' "$out" | LC_ALL=C tr -d '\001-\010\013-\037\177')" != "$out" ]; then
    echo "expect_clean.sh: the output holds a control character (shown by od -c):" >&2
    printf '%s' "$out" | LC_ALL=C tr -dc '\001-\010\013-\037\177' | od -c >&2
    exit 1
fi
