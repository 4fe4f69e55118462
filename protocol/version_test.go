package protocol

import "testing"

func TestParseVersion(t *testing.T) {
	ok := []struct {
		in   string
		want ProtocolVersion
	}{
		{"0.2.0", ProtocolVersion{0, 2, 0}},
		{"1.10.3", ProtocolVersion{1, 10, 3}},
		{"0.2.1-dev", ProtocolVersion{0, 2, 1}},
		{"0.3.0-rc.1", ProtocolVersion{0, 3, 0}},
		{"0.2.0+build.5", ProtocolVersion{0, 2, 0}},
		{"0.2.0-beta.2+exp.sha.5114f85", ProtocolVersion{0, 2, 0}},
		{"00.02.00", ProtocolVersion{0, 2, 0}},
		{Version, ProtocolVersion{0, 4, 0}}, // what a2c-smcp 0.4.x speaks
	}
	for _, tt := range ok {
		got, err := ParseVersion(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "0.2", "0.2.0.1", "v0.2.0", "0.x.0", "0..0", "-1.2.0", "0.2.-1", " 0.2.0", "0.2.0 ", "1e3.0.0", "0.+2.0", "9999999999.0.0", "0.2.0-", "0.2.0+", "0.2.0-rc 1", "0.2.0-rc\x00"} {
		if v, err := ParseVersion(in); err == nil {
			t.Errorf("ParseVersion(%q) = %v, want an error", in, v)
		}
	}
	if s := (ProtocolVersion{0, 2, 7}).String(); s != "0.2.7" {
		t.Errorf("String = %q", s)
	}
}

func TestCompatibleWith(t *testing.T) {
	tests := []struct {
		client, server string
		want           bool
	}{
		// 0.x: MAJOR.MINOR must match, PATCH is free
		{"0.2.0", "0.2.0", true},
		{"0.2.0", "0.2.9", true},
		{"0.2.5", "0.2.0", true},
		{"0.2.0", "0.3.0", false},
		{"0.3.0", "0.2.0", false},
		{"0.2.0", "1.2.0", false},
		// 1.x: MAJOR must match, server MINOR >= client MINOR
		{"1.2.0", "1.2.0", true},
		{"1.2.0", "1.5.0", true},
		{"1.5.0", "1.2.0", false},
		{"1.0.9", "1.0.0", true},
		{"1.2.0", "2.2.0", false},
		{"2.0.0", "1.9.0", false},
	}
	for _, tt := range tests {
		c, _ := ParseVersion(tt.client)
		s, _ := ParseVersion(tt.server)
		if got := c.CompatibleWith(s); got != tt.want {
			t.Errorf("client %s with server %s = %v, want %v", tt.client, tt.server, got, tt.want)
		}
	}
}

// TestSupportedRange: the range a 4008 names holds the client versions
// CompatibleWith admits (999 standing for any patch, as versioning.md's
// example writes it), and its neighbours outside are refused.
func TestSupportedRange(t *testing.T) {
	tests := []struct {
		server, min, max string
		outside          []string
	}{
		{"0.4.0", "0.4.0", "0.4.999", []string{"0.3.999", "0.5.0"}},
		{"0.4.7", "0.4.0", "0.4.999", []string{"0.3.0", "0.5.0"}},
		{"1.0.0", "1.0.0", "1.0.999", []string{"0.9.0", "1.1.0"}},
		{"1.2.3", "1.0.0", "1.2.999", []string{"0.2.0", "1.3.0", "2.0.0"}},
	}
	for _, tt := range tests {
		s, _ := ParseVersion(tt.server)
		lo, hi := s.SupportedRange()
		if lo.String() != tt.min || hi.String() != tt.max {
			t.Errorf("server %s: range %s–%s, want %s–%s", tt.server, lo, hi, tt.min, tt.max)
		}
		for _, c := range []ProtocolVersion{lo, hi} {
			if !c.CompatibleWith(s) {
				t.Errorf("server %s: the range's end %s is refused", tt.server, c)
			}
		}
		for _, raw := range tt.outside {
			if c, _ := ParseVersion(raw); c.CompatibleWith(s) {
				t.Errorf("server %s: %s, outside the range, is admitted", tt.server, raw)
			}
		}
	}
}
