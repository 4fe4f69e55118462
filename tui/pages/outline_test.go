package pages

import "testing"

// titleKey makes a PDF bookmark's title and the heading or line it names
// compare equal, as real manuals word them (valgrind's, nettle's,
// libtasn1's, fontconfig's), and keeps different titles apart.
func TestTitleKey(t *testing.T) {
	same := [][2]string{
		{"ASN.1 schema functions", "4.1 ASN.1 schema functions"}, // texinfo: the bookmark has no number
		{"SHA3-256", "7.1.1.6 SHA3-256"},
		{"5. Cachegrind: a cache and branch-prediction profiler", "5. Cachegrind: a cache and branchprediction profiler"}, // hyphen lost at a line break
		{"A Copying Information", "Appendix A Copying Information"},
		{"rescan", "<rescan>"},
		{"Install", "## Install"},
		{"2.13. Nonregular files", "2.13.  Non-regular   files"},
	}
	for _, c := range same {
		if a, b := titleKey(c[0]), titleKey(c[1]); a != b {
			t.Errorf("titleKey(%q) = %q, titleKey(%q) = %q; want equal", c[0], a, c[1], b)
		}
	}
	apart := [][2]string{
		{"HMAC", "HMAC-SHA1"},
		{"3.2 Naming", "3.2 Using names"},
		{"Invoking asn1Parser", "Invoking asn1Coding"},
	}
	for _, c := range apart {
		if titleKey(c[0]) == titleKey(c[1]) {
			t.Errorf("titleKey(%q) == titleKey(%q) = %q; want different", c[0], c[1], titleKey(c[0]))
		}
	}
}
