package sops

import (
	"encoding/base64"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v4"
)

// The MAC covers plaintext values as the Go values sops holds them, so a
// scalar must resolve to the same type sops gets from go.yaml.in/yaml/v3
// (which it uses) to yield the same MAC bytes: timestamps become time.Time,
// "0x1F" becomes 31, "yes" stays a string, and so on.

const (
	tagStr       = "!!str"
	tagBool      = "!!bool"
	tagInt       = "!!int"
	tagFloat     = "!!float"
	tagNull      = "!!null"
	tagTimestamp = "!!timestamp"
	tagBinary    = "!!binary"
)

var errTagMismatch = errors.New("scalar does not match its explicit tag")

var yamlStyleFloat = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
})

var resolveWords = map[string]struct {
	tag   string
	value any
}{
	"true": {tagBool, true}, "True": {tagBool, true}, "TRUE": {tagBool, true},
	"false": {tagBool, false}, "False": {tagBool, false}, "FALSE": {tagBool, false},
	"": {tagNull, nil}, "~": {tagNull, nil}, "null": {tagNull, nil}, "Null": {tagNull, nil}, "NULL": {tagNull, nil},
	".nan": {tagFloat, math.NaN()}, ".NaN": {tagFloat, math.NaN()}, ".NAN": {tagFloat, math.NaN()},
	".inf": {tagFloat, math.Inf(1)}, ".Inf": {tagFloat, math.Inf(1)}, ".INF": {tagFloat, math.Inf(1)},
	"+.inf": {tagFloat, math.Inf(1)}, "+.Inf": {tagFloat, math.Inf(1)}, "+.INF": {tagFloat, math.Inf(1)},
	"-.inf": {tagFloat, math.Inf(-1)}, "-.Inf": {tagFloat, math.Inf(-1)}, "-.INF": {tagFloat, math.Inf(-1)},
	"<<": {"!!merge", "<<"},
}

// scalarValue returns the Go value of a scalar node: nil, string, int,
// uint64, float64, bool or time.Time.
func scalarValue(n *yaml.Node) (any, error) {
	explicit := ""
	if n.Style&yaml.TaggedStyle != 0 && n.Tag != "!" {
		explicit = n.Tag
	}
	quoted := n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0
	switch {
	case explicit == tagStr, explicit == "" && quoted:
		return n.Value, nil
	case explicit == tagBinary:
		b, err := base64.StdEncoding.DecodeString(n.Value)
		if err != nil {
			return nil, errors.New("!!binary scalar holds invalid base64")
		}
		return string(b), nil
	case explicit == "":
		_, v := resolvePlain(n.Value, "")
		return v, nil
	case explicit == tagBool, explicit == tagInt, explicit == tagFloat, explicit == tagNull, explicit == tagTimestamp:
		tag, v := resolvePlain(n.Value, explicit)
		switch {
		case tag == explicit:
			return v, nil
		case explicit == tagFloat && tag == tagInt:
			if i, ok := v.(int); ok {
				return float64(i), nil
			}
		}
		return nil, errTagMismatch
	default:
		// Tags sops does not resolve (custom or collection tags) keep the text.
		return n.Value, nil
	}
}

func resolvePlain(s, explicit string) (string, any) {
	if w, ok := resolveWords[s]; ok {
		return w.tag, w.value
	}
	if s == "" {
		return tagNull, nil
	}
	switch c := s[0]; {
	case c == '.':
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return tagFloat, f
		}
	case c == '+' || c == '-' || (c >= '0' && c <= '9'):
		if explicit == "" || explicit == tagTimestamp {
			if t, ok := parseTimestamp(s); ok {
				return tagTimestamp, t
			}
		}
		if tag, v, ok := resolveNumber(strings.ReplaceAll(s, "_", "")); ok {
			return tag, v
		}
	}
	return tagStr, s
}

func resolveNumber(plain string) (string, any, bool) {
	if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return tagInt, int(i), true
	}
	if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return tagInt, u, true
	}
	if yamlStyleFloat().MatchString(plain) {
		if f, err := strconv.ParseFloat(plain, 64); err == nil {
			return tagFloat, f, true
		}
	}
	for _, p := range []struct {
		prefix string
		base   int
	}{{"0b", 2}, {"0o", 8}} {
		if digits, ok := strings.CutPrefix(plain, p.prefix); ok {
			if i, err := strconv.ParseInt(digits, p.base, 64); err == nil {
				return tagInt, int(i), true
			}
			if u, err := strconv.ParseUint(digits, p.base, 64); err == nil {
				return tagInt, u, true
			}
		} else if digits, ok := strings.CutPrefix(plain, "-"+p.prefix); ok {
			if i, err := strconv.ParseInt("-"+digits, p.base, 64); err == nil {
				return tagInt, int(i), true
			}
		}
	}
	return "", nil, false
}

var timestampLayouts = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

func parseTimestamp(s string) (time.Time, bool) {
	// Every accepted layout starts with a four-digit year and a dash.
	if len(s) < 5 || s[4] != '-' {
		return time.Time{}, false
	}
	for _, c := range s[:4] {
		if c < '0' || c > '9' {
			return time.Time{}, false
		}
	}
	for _, layout := range timestampLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
