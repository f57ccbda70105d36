package sops

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"testing"
)

func TestParseEnc(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"sops value", "ENC[AES256_GCM,data:AAAA,iv:BBBB,tag:CCCC,type:str]", true},
		{"another cipher", "ENC[AES128_GCM,data:AAAA,iv:BBBB,tag:CCCC,type:str]", false},
		{"missing type", "ENC[AES256_GCM,data:AAAA,iv:BBBB,tag:CCCC]", false},
		{"empty data", "ENC[AES256_GCM,data:,iv:BBBB,tag:CCCC,type:str]", false},
		{"text after the bracket", "ENC[AES256_GCM,data:AAAA,iv:BBBB,tag:CCCC,type:str] ", false},
		{"fields out of order", "ENC[AES256_GCM,data:AAAA,tag:CCCC,iv:BBBB,type:str]", false},
		{"plaintext", "hunter2", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := parseEnc(tt.in); ok != tt.ok {
				t.Errorf("parseEnc(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			}
		})
	}
}

func TestTyped_ParsesLikeSops(t *testing.T) {
	tests := []struct {
		plain, typ string
		want       any
		err        error
	}{
		{"2", "int", 2, nil},
		{"x", "int", nil, errBadPlaintext},
		{"True", "bool", true, nil},
		{"false", "bool", false, nil},
		{"maybe", "bool", nil, errBadPlaintext},
		{"1.5", "float", 1.5, nil},
		{"hello", "str", "hello", nil},
		{" note", "comment", commentText(" note"), nil},
		{"x", "weird", nil, errUnknownType},
	}
	for _, tt := range tests {
		t.Run(tt.typ+"/"+tt.plain, func(t *testing.T) {
			got, err := typed([]byte(tt.plain), tt.typ)
			if !errors.Is(err, tt.err) || (tt.err == nil && got != tt.want) {
				t.Errorf("typed(%q, %s) = %#v, %v; want %#v, %v", tt.plain, tt.typ, got, err, tt.want, tt.err)
			}
		})
	}
}

func TestMACOnlyEncryptedInit_IsSHA256OfSops(t *testing.T) {
	if sum := sha256.Sum256([]byte("sops")); !bytes.Equal(sum[:], macOnlyEncryptedInit) {
		t.Errorf("macOnlyEncryptedInit = %x, want %x", macOnlyEncryptedInit, sum)
	}
}
