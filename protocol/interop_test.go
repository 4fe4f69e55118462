package protocol

import "testing"

func TestSpeaks(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{
		{"0.1.9", false},
		{"0.2.0", true},
		{Version, true},
		{"0.3.1", true},
		{"0.4.0", true}, // a2c-smcp 0.4.2's PROTOCOL_VERSION
		{"0.4.1000", true},
		{"0.5.0", false},
		{"1.0.0", false},
		{"1.3.0", false},
	}
	for _, tt := range tests {
		v, err := ParseVersion(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		if got := Speaks(v); got != tt.want {
			t.Errorf("Speaks(%s) = %v, want %v", tt.v, got, tt.want)
		}
	}
	for _, s := range []string{MinVersion, MaxVersion} {
		if _, err := ParseVersion(s); err != nil {
			t.Errorf("bound %q does not parse: %v", s, err)
		}
	}
}
