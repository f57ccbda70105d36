package sops

import (
	"regexp"
	"strings"
)

// rules decide which leaves sops encrypted. At most one is set, except that
// the default unencrypted suffix applies when none is.
type rules struct {
	unencryptedSuffix       string
	encryptedSuffix         string
	unencryptedRegex        *regexp.Regexp
	encryptedRegex          *regexp.Regexp
	unencryptedCommentRegex *regexp.Regexp
	encryptedCommentRegex   *regexp.Regexp
}

// encrypted reports whether sops encrypts the leaf at path, given the
// comment lines seen so far at each level (comments) and whether the leaf is
// itself a comment. Any key on the path can match a key rule, so one
// matching key covers its whole subtree.
func (r *rules) encrypted(path []string, comments [][]string, isComment bool) bool {
	encrypted := r.unencryptedSuffix == "" || !anyKey(path, func(k string) bool { return strings.HasSuffix(k, r.unencryptedSuffix) })
	if r.encryptedSuffix != "" {
		encrypted = anyKey(path, func(k string) bool { return strings.HasSuffix(k, r.encryptedSuffix) })
	}
	if r.unencryptedRegex != nil && anyKey(path, r.unencryptedRegex.MatchString) {
		encrypted = false
	}
	if r.encryptedRegex != nil {
		encrypted = anyKey(path, r.encryptedRegex.MatchString)
	}
	if r.unencryptedCommentRegex != nil {
		for _, level := range comments {
			if anyKey(level, r.unencryptedCommentRegex.MatchString) {
				encrypted = false
				break
			}
		}
	}
	if r.encryptedCommentRegex != nil {
		encrypted = false
		last := len(comments) - 1
	levels:
		for i, level := range comments {
			for j, c := range level {
				// A comment that matches does not encrypt itself, only what
				// follows it.
				if isComment && i == last && j == len(level)-1 {
					continue
				}
				if r.encryptedCommentRegex.MatchString(c) {
					encrypted = true
					break levels
				}
			}
		}
	}
	return encrypted
}

func anyKey(keys []string, match func(string) bool) bool {
	for _, k := range keys {
		if match(k) {
			return true
		}
	}
	return false
}
