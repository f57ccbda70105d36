package sops

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// The reasons below end up in error messages; none of them may quote the
// plaintext, so the strconv and time errors (which do) are never wrapped.
var (
	errNotEncValue  = errors.New("value is not a sops ENC[AES256_GCM,...] value")
	errBadEncoding  = errors.New("encrypted value has invalid base64 or an empty IV")
	errAuth         = errors.New("authentication failed")
	errUnknownType  = errors.New("encrypted value has an unknown type")
	errBadPlaintext = errors.New("decrypted value does not parse as its declared type")
)

// encParts are the base64 fields and the type of an ENC[...] value.
type encParts struct {
	data, iv, tag, typ string
}

// parseEnc splits ENC[AES256_GCM,data:...,iv:...,tag:...,type:...] into its
// fields, all of which must be non-empty.
func parseEnc(value string) (encParts, bool) {
	var p encParts
	rest, ok1 := strings.CutPrefix(value, "ENC[AES256_GCM,data:")
	rest, ok2 := strings.CutSuffix(rest, "]")
	var ok3, ok4, ok5 bool
	p.data, rest, ok3 = strings.Cut(rest, ",iv:")
	p.iv, rest, ok4 = strings.Cut(rest, ",tag:")
	p.tag, p.typ, ok5 = strings.Cut(rest, ",type:")
	ok := ok1 && ok2 && ok3 && ok4 && ok5 && p.data != "" && p.iv != "" && p.tag != "" && p.typ != ""
	return p, ok
}

// commentText is a decrypted value of type comment.
type commentText string

// valueCipher opens sops values sealed with the document's data key.
type valueCipher struct {
	block cipher.Block
}

func newValueCipher(dataKey []byte) (valueCipher, error) {
	block, err := aes.NewCipher(dataKey)
	if err != nil {
		return valueCipher{}, err
	}
	return valueCipher{block: block}, nil
}

// decrypt opens an ENC[...] value with the given additional data and returns
// it typed the way sops does: string, int, float64, bool, []byte, time.Time
// or commentText. An empty string is sops's encoding of an empty value.
func (c valueCipher) decrypt(value, additionalData string) (any, error) {
	if value == "" {
		return "", nil
	}
	p, ok := parseEnc(value)
	if !ok {
		return nil, errNotEncValue
	}
	data, err1 := base64.StdEncoding.DecodeString(p.data)
	iv, err2 := base64.StdEncoding.DecodeString(p.iv)
	tag, err3 := base64.StdEncoding.DecodeString(p.tag)
	if err1 != nil || err2 != nil || err3 != nil || len(iv) == 0 {
		return nil, errBadEncoding
	}
	gcm, err := cipher.NewGCMWithNonceSize(c.block, len(iv))
	if err != nil {
		return nil, errBadEncoding
	}
	sealed := make([]byte, 0, len(data)+len(tag))
	sealed = append(append(sealed, data...), tag...)
	plain, err := gcm.Open(nil, iv, sealed, []byte(additionalData))
	if err != nil {
		return nil, errAuth
	}
	return typed(plain, p.typ)
}

func typed(plain []byte, typ string) (any, error) {
	s := string(plain)
	switch typ {
	case "str":
		return s, nil
	case "int":
		i, err := strconv.Atoi(s)
		if err != nil {
			return nil, errBadPlaintext
		}
		return i, nil
	case "float":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, errBadPlaintext
		}
		return f, nil
	case "bool":
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, errBadPlaintext
		}
		return b, nil
	case "bytes":
		return plain, nil
	case "time":
		var t time.Time
		if err := t.UnmarshalText(plain); err != nil {
			return nil, errBadPlaintext
		}
		return t, nil
	case "comment":
		return commentText(s), nil
	}
	return nil, errUnknownType
}

// macBytes is the representation of a value that sops feeds into the MAC.
func macBytes(v any) ([]byte, error) {
	switch v := v.(type) {
	case string:
		return []byte(v), nil
	case int:
		return []byte(strconv.Itoa(v)), nil
	case float64:
		return []byte(strconv.FormatFloat(v, 'f', -1, 64)), nil
	case bool:
		if v {
			return []byte("True"), nil
		}
		return []byte("False"), nil
	case []byte:
		return v, nil
	case time.Time:
		b, err := v.MarshalText()
		if err != nil {
			return nil, errors.New("timestamp out of range")
		}
		return b, nil
	}
	return nil, errors.New("value of an unsupported type")
}
