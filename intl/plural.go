package intl

import "strconv"

// Plural counts an English noun with a regular plural: "1 note",
// "2 notes", "0 notes". Messages that count things use it, so none says
// "1 notes".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
