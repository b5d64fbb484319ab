package web

import (
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

func TestPageIsServedFromTheBinary(t *testing.T) {
	s, _ := newTestServer(t, Config{}, 1)
	res, body := get(t, s.Handler(), "GET", "/")
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(body, `src="/assets/app.js"`) || !strings.Contains(body, `href="/assets/style.css"`) {
		t.Fatalf("GET /: %d %q\n%s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	for path, ctype := range map[string]string{"/assets/app.js": "text/javascript", "/assets/style.css": "text/css"} {
		res, body := get(t, s.Handler(), "GET", path)
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), ctype) || len(body) < 100 {
			t.Errorf("GET %s: %d %q, %d bytes", path, res.StatusCode, res.Header.Get("Content-Type"), len(body))
		}
	}
}

// TestAssetsFetchNothingFromOutside checks that no embedded file names
// another host: the only URL allowed is the SVG namespace, which is a name.
func TestAssetsFetchNothingFromOutside(t *testing.T) {
	url := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)
	err := fs.WalkDir(assets, "assets", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := assets.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range url.FindAllString(string(b), -1) {
			if m != "http://www.w3.org" {
				t.Errorf("%s refers to %s", path, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
