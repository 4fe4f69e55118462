package extract

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEncryptedOfficeFilesSaySo reads OOXML files encrypted with a
// password (testdata/encrypted: the corpus's budget.xlsx, onboarding.docx
// and roadmap.pptx, encrypted by msoffcrypto-tool 6.1 with the agile
// scheme, as Office does): an OLE container holding an EncryptedPackage
// stream, not a zip. Parse and Peek say the file is encrypted and needs
// a password, not "zip: not a valid zip file".
func TestEncryptedOfficeFilesSaySo(t *testing.T) {
	for _, name := range []string{"budget.xlsx", "onboarding.docx", "roadmap.pptx"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "encrypted", name))
		if err != nil {
			t.Fatal(err)
		}
		_, perr := Parse(context.Background(), Source{Name: name, Data: data}, Options{})
		_, kerr := Peek(context.Background(), name, bytes.NewReader(data), int64(len(data)), Options{})
		for what, err := range map[string]error{"parse": perr, "peek": kerr} {
			if err == nil || !strings.Contains(err.Error(), "encrypted") || !strings.Contains(err.Error(), "password") || strings.Contains(err.Error(), "zip") {
				t.Errorf("%s %s: %v", what, name, err)
			}
		}
	}
}

// TestOldBinaryOfficeFileSaysSo reads a real Excel 97 workbook (an OLE
// file of the mscfb module's tests) under an .xlsx name: it is not
// encrypted, and the error says what it is.
func TestOldBinaryOfficeFileSaysSo(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/richardlehane/mscfb").Output()
	if err != nil {
		t.Fatalf("go list mscfb: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "test", "test.xls"))
	if err != nil {
		t.Fatal(err)
	}
	_, perr := Parse(context.Background(), Source{Name: "old.xlsx", Data: data}, Options{})
	_, kerr := Peek(context.Background(), "old.xlsx", bytes.NewReader(data), int64(len(data)), Options{})
	for what, err := range map[string]error{"parse": perr, "peek": kerr} {
		if err == nil || strings.Contains(err.Error(), "encrypted") || !strings.Contains(err.Error(), "older binary Office") {
			t.Errorf("%s: %v", what, err)
		}
	}
}
