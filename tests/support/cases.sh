# cases.sh PROGRAM "CASE..." — the cases a cmocka program holds (PROGRAM --list) must be exactly the
# cases CTest registers for it (tests/support/cases.cmake): a case missing from the list would never run.
program=$1
listed=$2
held=$("$program" --list) || { echo "$program --list failed"; exit 1; }
status=0
for c in $held; do
  case " $listed " in *" $c "*) ;; *) echo "$program: case '$c' has no CTest entry (add it to the list in CMakeLists.txt)"; status=1 ;; esac
done
for c in $listed; do
  case " $(echo $held) " in *" $c "*) ;; *) echo "$program: CTest lists case '$c', which the program does not hold"; status=1 ;; esac
done
[ $status -eq 0 ] && echo "$(echo $held | wc -w) cases, each registered"
exit $status
