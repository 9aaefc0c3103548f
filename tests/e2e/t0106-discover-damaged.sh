#!/bin/bash
# A damaged tree (garbage and truncated values, a dangling virtfn link, a
# missing numa_node, a port state that is no state): no crash, exit 0, one
# warning per bad file naming the file and the value, the rest reported.
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host damaged

"$IBBIN/oneib-discover" --format=json >"$TEST_TMP/out.json" 2>"$TEST_TMP/err"
assert_eq 0 $? "exit status"
assert_json_eq "$SIM_HOST_DIR/expect.json" "$TEST_TMP/out.json" "what could be read"
assert_eq "$(grep -c . "$SIM_HOST_DIR/expect-warnings.txt")" "$(grep -c . "$TEST_TMP/err")" "one warning per bad file"
while IFS= read -r path; do
	assert_match "^oneib-discover: $path: " "$(grep -F "$path:" "$TEST_TMP/err")" "warning names $path"
done <"$SIM_HOST_DIR/expect-warnings.txt"
assert_match "numa_node: not a number: 'garbage'" "$(cat "$TEST_TMP/err")" "garbage value quoted"
assert_match "state: unexpected value 'banana'" "$(cat "$TEST_TMP/err")" "bad state quoted"
assert_match "virtfn3: dangling link to '0000:3b:00.4'" "$(cat "$TEST_TMP/err")" "dangling link named"

# The sanitized build reads the same tree cleanly (no leak, no UB).
if [ -x "$TOP/build/asan/bin/oneib-discover" ]; then
	ASAN_OPTIONS=detect_leaks=1 "$TOP/build/asan/bin/oneib-discover" --format=json >"$TEST_TMP/asan.json" 2>"$TEST_TMP/asan.err"
	assert_eq 0 $? "ASan+UBSan build exit status"
	assert_json_eq "$TEST_TMP/out.json" "$TEST_TMP/asan.json" "ASan build gives the same answer"
fi
test_done
