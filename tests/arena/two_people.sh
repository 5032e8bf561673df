#!/usr/bin/env bash
# Two people play arena over UDP (examples/arena/arena_play.cpp), each in a tmux pane: a real
# terminal in raw mode, keys typed into it. Player 0 holds "right" (d) and charges (space),
# player 1 holds "left" (the arrow key, an escape sequence) and "up" (w). Then both replays
# must be byte-identical, verify with arena's own tool, and hold exactly those inputs.
# usage: two_people.sh ARENA_PLAY ARENA_TOOL WORKDIR
set -u
play=$1
tool=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
socket="lockstep-arena-$$"
tm() { tmux -L "$socket" "$@"; }
trap 'tm kill-server 2>/dev/null' EXIT
fail() {
  echo "FAIL: $*"
  for i in 0 1; do echo "--- pane $i"; tail -8 "$work/screen$i.txt" 2>/dev/null; cat "$work/p$i.err" 2>/dev/null; done
  exit 1
}

# Two free UDP ports (bound and released: a small race, acceptable in a test). The sockets are
# closed before the ports are printed: `read` returns on the line, and a python still holding
# them made both players fail with "Address already in use" (CI, 2026-12-06).
read -r port0 port1 < <(python3 -c '
import socket
s = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
ports = [x.getsockname()[1] for x in s]
for x in s: x.close()
print(*ports)')
peers=127.0.0.1:$port0,127.0.0.1:$port1
ticks=420  # 7 s at the sim's 60 Hz
for i in 0 1; do
  # The pane is the player's terminal; after the match it stays open (sleep) so that its last
  # screen, with the summary line, can be read.
  cmd="'$play' --id $i --peers $peers --ticks $ticks --units 6 --record '$work/p$i.replay' 2>'$work/p$i.err'; echo \$? >'$work/p$i.rc'; sleep 120"
  if [[ $i == 0 ]]; then
    TERM=xterm-256color tm new-session -d -s match -x 140 -y 30 "bash -c \"$cmd\""
  else
    tm split-window -h -t match "bash -c \"$cmd\""
  fi
done

# Wait until both panes show the running match.
for _ in $(seq 1 300); do
  tm capture-pane -p -t match:0.0 >"$work/screen0.txt" 2>/dev/null
  tm capture-pane -p -t match:0.1 >"$work/screen1.txt" 2>/dev/null
  grep -q "running" "$work/screen0.txt" && grep -q "running" "$work/screen1.txt" && break
  sleep 0.05
done
grep -q "running" "$work/screen0.txt" || fail "player 0's pane never showed the running match"
grep -q "running" "$work/screen1.txt" || fail "player 1's pane never showed the running match"

# About two seconds of key presses, as a person holding keys (terminal auto-repeat ~30/s).
for k in $(seq 1 50); do
  tm send-keys -t match:0.0 d
  tm send-keys -t match:0.1 Left
  if (( k % 5 == 0 )); then tm send-keys -t match:0.0 Space; tm send-keys -t match:0.1 w; fi
  sleep 0.04
done

for _ in $(seq 1 600); do [[ -f $work/p0.rc && -f $work/p1.rc ]] && break; sleep 0.1; done
tm capture-pane -p -t match:0.0 >"$work/screen0.txt" 2>/dev/null
tm capture-pane -p -t match:0.1 >"$work/screen1.txt" 2>/dev/null
sleep 0.3  # the summary line is printed after the replay is closed
tm capture-pane -p -t match:0.0 >"$work/screen0.txt" 2>/dev/null
tm capture-pane -p -t match:0.1 >"$work/screen1.txt" 2>/dev/null
[[ -f $work/p0.rc && -f $work/p1.rc ]] || fail "the match did not end within 60 s"
for i in 0 1; do
  [[ $(cat "$work/p$i.rc") == 0 ]] || fail "player $i exited $(cat "$work/p$i.rc"): $(cat "$work/p$i.err")"
  grep -q "player $i: OK, confirmed $ticks/$ticks ticks" "$work/screen$i.txt" || fail "player $i's summary is missing"
done
cmp -s "$work/p0.replay" "$work/p1.replay" || fail "the two replays differ"
"$tool" verify "$work/p0.replay" >"$work/verify.out" 2>&1 || fail "verify: $(cat "$work/verify.out")"
"$tool" convert "$work/p0.replay" "$work/p0.json" >/dev/null 2>&1 || fail "convert failed"
# Inputs per frame: "DXDYCHRS DXDYCHRS" (hex bytes, player 0 then player 1; ff = -1).
python3 - "$work/p0.json" "$ticks" <<'PY' || fail "the replay does not hold the keys pressed"
import json, sys
r = json.load(open(sys.argv[1]))["lockstep_replay"]
frames = [f.split() for f in r["frames"]]
ticks = int(sys.argv[2])
assert len(frames) == ticks, f"{len(frames)} frames, expected {ticks}"
right = sum(1 for f in frames if f[0][0:2] == "01" and f[0][2:4] == "00")
charge = sum(1 for f in frames if f[0][4:6] == "01")
left = sum(1 for f in frames if f[1][0:2] == "ff" and f[1][2:4] == "00")
up = sum(1 for f in frames if f[1][0:2] == "00" and f[1][2:4] == "01")
bad = sum(1 for f in frames if f[0][0:2] == "ff" or f[0][2:4] not in ("00",) or f[1][0:2] == "01" or f[1][2:4] == "ff"
          or f[1][4:6] != "00")
print(f"frames {len(frames)}: player 0 right {right}, charge {charge}; player 1 left {left}, up {up}; unexpected {bad}")
assert right >= 30 and charge >= 5 and left >= 30 and up >= 5, "too few of the pressed inputs"
assert bad == 0, "inputs nobody pressed"
PY
echo "ok: two people played $ticks ticks; replays identical and verified"
