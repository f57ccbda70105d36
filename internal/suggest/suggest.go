// Package suggest finds what a user most likely meant by a name talops does not know: a
// node, a field, a command or a flag mistyped by a letter or two.
package suggest

import "slices"

// Closest is the candidate nearest to word by edit distance, "" when none is near enough
// to be worth a "did you mean": at most a third of the word's letters (and 2) differ.
func Closest(word string, candidates []string) string {
	if slices.Contains(candidates, word) {
		return "" // a name that exists is no typo
	}

	best, bestDist := "", 0

	limit := min(2, max(1, len([]rune(word))/3))

	for _, c := range candidates {

		if d := distance(word, c); d <= limit && (best == "" || d < bestDist) {
			best, bestDist = c, d
		}
	}

	return best
}

// DidYouMean is "; did you mean X?" for the candidate Closest finds, "" without one.
func DidYouMean(word string, candidates []string) string {
	if c := Closest(word, candidates); c != "" {
		return "; did you mean " + c + "?"
	}

	return ""
}

// distance is the edit distance between a and b over runes, two swapped neighbours
// counting as one edit (optimal string alignment): "plna" is one edit from "plan".
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)

	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}

	for j := range d[0] {
		d[0][j] = j
	}

	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}

			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)

			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}

	return d[len(ra)][len(rb)]
}
