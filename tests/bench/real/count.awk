# mawk's work in the real-program benchmark: word frequencies, lengths and
# numbers summed over text.txt, then the top words.
{
	for (i = 1; i <= NF; i++) {
		w = tolower($i)
		gsub(/[^a-z0-9]/, "", w)
		if (w == "")
			continue
		n[w]++
		len[length(w)]++
		if (w ~ /^[0-9]+$/)
			sum += w
	}
	lines++
	chars += length($0)
}
END {
	for (w in n)
		if (n[w] > top) {
			top = n[w]
			topw = w
		}
	printf "%d lines %d chars sum %d top %s %d\n", lines, chars, sum, topw, top
	for (k in len)
		printf "%d %d\n", k, len[k]
}
