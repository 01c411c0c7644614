# timing.sh: the timing helpers bench's comparison scripts share; source it.

# one CMD...: "wall cpu" seconds of one run of CMD, output discarded, and
# CMD's exit status (the time of a failing run is still printed: a peer
# that fails part way is timed up to its failure). Bash's own timer: wall
# time to the millisecond and the child's user + system time from its
# rusage, where /usr/bin/time rounds to 10 ms (a 40 ms run is then ±12%).
one() {
	local t s=0
	t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" > /dev/null 2>&1; } 2>&1 ) || s=$?
	awk '{printf "%s %.3f\n", $1, $2 + $3}' <<< "$t"
	return $s
}

# median: the median of the numbers on standard input, one a line.
median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }
