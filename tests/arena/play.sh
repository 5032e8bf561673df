#!/usr/bin/env bash
# arena-play from outside a terminal (examples/arena/arena_play.cpp):
#   help   --help prints the usage and how to play, exit 0
#   match  two players who press nothing play 120 ticks over UDP on localhost: the screen
#          shows the ring and its explanation and the labelled score; the last line names
#          the result ("no winner: no kills", the rules' answer for 0:0) with the score
# usage: play.sh CASE ARENA_PLAY WORKDIR
set -u
case_name=$1
play=$2
work=$3/$case_name
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; for f in "$work"/*.out "$work"/*.err; do [[ -f $f ]] && { echo "--- $f"; tail -c 2000 "$f"; }; done; exit 1; }

case $case_name in
  help)
    "$play" --help >"$work/help.out" 2>"$work/help.err"
    rc=$?
    [[ $rc -eq 0 ]] || fail "--help exited $rc"
    [[ ! -s $work/help.err ]] || fail "--help wrote to stderr"
    head -1 "$work/help.out" | grep -qxF "arena-play: two people play arena over UDP, each in a terminal." || fail "no first line"
    grep -qxF "usage: arena-play --id N --peers HOST:PORT,HOST:PORT [--record FILE] [--key-file FILE | --no-auth]" "$work/help.out" \
      || fail "no usage line"
    grep -qF "They fight only inside the ring (the dots" "$work/help.out" || fail "the ring is not explained"
    grep -qF "the team with the most kills wins." "$work/help.out" || fail "how to win is not explained"
    "$play" -h >"$work/h.out" 2>&1 || fail "-h exited $?"
    cmp -s "$work/help.out" "$work/h.out" || fail "-h differs from --help"
    "$play" --id 0 >"$work/bad.out" 2>"$work/bad.err"
    [[ $? -eq 2 ]] || fail "a bad command line must exit 2"
    ;;
  match)
    # The sockets are closed before the ports are printed: `read` returns on the line, and a
    # python still holding them made both players fail with "Address already in use".
    read -r port0 port1 < <(python3 -c '
import socket
s = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
ports = [x.getsockname()[1] for x in s]
for x in s: x.close()
print(*ports)')
    peers=127.0.0.1:$port0,127.0.0.1:$port1
    for i in 0 1; do
      "$play" --id $i --peers "$peers" --ticks 120 --units 4 --no-auth </dev/null >"$work/p$i.out" 2>"$work/p$i.err" &
      pids[$i]=$!
    done
    for i in 0 1; do wait "${pids[$i]}"; rc[$i]=$?; done
    for i in 0 1; do
      [[ ${rc[$i]} -eq 0 ]] || fail "player $i exited ${rc[$i]}"
      tr -d '\r' <"$work/p$i.out" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' >"$work/p$i.txt"
      grep -qxF "score (kills): red 0, blue 0" "$work/p$i.txt" || fail "player $i: no labelled score line"
      grep -qxF "fights happen only inside the ring (the dots in the middle): lead your fighters there" "$work/p$i.txt" \
        || fail "player $i: the ring is not explained"
      # The ring drawn: the middle row of the picture has dots around the centre.
      grep -qE '^\|[ ox]*\.\.\.\.\.\.\.' "$work/p$i.txt" || fail "player $i: the ring is not drawn"
      grep -qF "player $i: OK, confirmed 120/120 ticks" "$work/p$i.txt" || fail "player $i: no summary"
      last=$(grep -v '^$' "$work/p$i.txt" | tail -1)
      [[ $last == "arena-play: no winner: no kills; score (kills): red 0, blue 0" ]] || fail "player $i: last line '$last'"
    done
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "ok $case_name"
