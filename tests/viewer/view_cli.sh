#!/usr/bin/env bash
# `lockstep view` without emscripten (docs/viewer.md): the missing template is explained, a
# bad file is refused with its offset, a template is filled with the file's exact bytes, and a
# frames page over its --embed-limit holds keyframes and says which flags give every tick.
# usage: view_cli.sh CASE LOCKSTEP SOURCE_DIR WORK_DIR
set -uo pipefail
case_name=$1 bin=$2 src=$3 work=$4/$1
rm -rf "$work" && mkdir -p "$work"
unset LOCKSTEP_VIEWER_PAGE
expect() {  # code cmd...
  local want=$1; shift
  "$@" > "$work/out.txt" 2> "$work/err.txt"
  local got=$?
  if [[ $got -ne $want ]]; then echo "FAIL: exit $got, expected $want: $*"; cat "$work/out.txt" "$work/err.txt"; exit 1; fi
}
contains() { grep -qF -- "$2" "$work/$1" || { echo "FAIL: $1 lacks: $2"; cat "$work/$1"; exit 1; }; }
template=$work/template.html
printf '<html><script id="lockstep-data" type="application/json">@LOCKSTEP_DATA@</script></html>\n' > "$template"
case $case_name in
  no_template)
    expect 2 "$bin" view "$src/fixtures/duel/duel.replay" -o "$work/x.html" --viewer "$work/absent.html"
    contains err.txt "view: the viewer page template (lockstep-viewer.html) was not found; looked in:"
    contains err.txt "$work/absent.html"
    contains err.txt "run scripts/bootstrap --browser, configure with -DLOCKSTEP_VIEWER=ON"
    [[ ! -e $work/x.html ]] || { echo "FAIL: wrote a page without a template"; exit 1; }
    ;;
  bad_file)
    head -c 100 /dev/urandom > "$work/junk.bin"
    printf 'XLSREPLAY' > "$work/junk.bin"
    expect 2 "$bin" view "$work/junk.bin" -o "$work/x.html" --viewer "$template"
    contains err.txt "junk.bin: byte 0: expected a replay (LSREPLAY or JSON), a desync bundle (LSBUNDLE) or a snapshot file (LSSNAP)"
    # One flipped byte inside a block: its checksum names the offset.
    python3 -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[len(b) // 2] ^= 0x55; open(sys.argv[2], 'wb').write(b)
" "$src/fixtures/duel/duel.replay" "$work/flipped.replay"
    expect 2 "$bin" view "$work/flipped.replay" -o "$work/x.html" --viewer "$template"
    contains err.txt "flipped.replay: byte "
    printf 'no placeholder\n' > "$work/plain.html"
    expect 2 "$bin" view "$src/fixtures/duel/duel.replay" -o "$work/x.html" --viewer "$work/plain.html"
    contains err.txt "not a viewer page template (expected exactly one @LOCKSTEP_DATA@)"
    ;;
  fills_template)
    expect 0 "$bin" view "$src/fixtures/duel/duel.replay" -o "$work/page.html" --viewer "$template"
    contains out.txt "wrote $work/page.html"
    python3 - "$work/page.html" "$src/fixtures/duel/duel.replay" <<'PY' || exit 1
import base64, json, re, sys
page = open(sys.argv[1]).read()
m = re.fullmatch(r'<html><script id="lockstep-data" type="application/json">(.*)</script></html>\n', page, re.S)
assert m, page[:200]
data = json.loads(m.group(1))
assert data["name"] == "duel.replay", data["name"]
assert base64.b64decode(data["bytes"]) == open(sys.argv[2], "rb").read(), "embedded bytes differ from the file"
PY
    # Found beside the tool's directory through LOCKSTEP_VIEWER_PAGE too.
    LOCKSTEP_VIEWER_PAGE=$template expect 0 "$bin" view "$src/fixtures/duel/duel.replay" -o "$work/page2.html"
    cmp "$work/page.html" "$work/page2.html" || { echo "FAIL: pages differ"; exit 1; }
    ;;
  keyframes)
    expect 0 "$bin" view "$src/fixtures/skirmish/skirmish.replay" -o "$work/k.html" --embed-limit 1
    contains out.txt "wrote $work/k.html ("
    contains out.txt " frames, keyframes every "
    contains out.txt " ticks (--embed-limit 1 MiB; --serve shows every tick)): open it in a browser, no server needed"
    contains k.html "ticks) to stay under 1 MiB; other ticks show the keyframe before them. Every tick: lockstep view FILE --serve"
    ;;
  *) echo "unknown case $case_name"; exit 2 ;;
esac
echo "ok: $case_name"
