package redact

import "testing"

func TestURL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"http://127.0.0.1:8000", "http://127.0.0.1:8000"},
		{"http://user:pw@host:8000/v1", "http://<redacted>@host:8000/v1"},
		{"user:pw@host:8000", "<redacted>@host:8000"},
		{"http://h/v1?api-key=S1&model=m&API_KEY=S2", "http://h/v1?api-key=<redacted>&model=m&API_KEY=<redacted>"},
		{"/v1/chat/completions?api-key=SECRET123", "/v1/chat/completions?api-key=<redacted>"},
		{"https://acct.blob/x?sv=2021&sig=abc%2Fdef&se=2030#frag", "https://acct.blob/x?sv=2021&sig=<redacted>&se=2030#frag"},
		{"http://fn.azurewebsites.net/api/f?code=K1", "http://fn.azurewebsites.net/api/f?code=<redacted>"},
		{"http://h/?api%5Fkey=S", "http://h/?api%5Fkey=<redacted>"},
		{"http://h/?api+key=S", "http://h/?api+key=<redacted>"},
		{"http://h/?token_count=5&monkey=1&max_tokens=9", "http://h/?token_count=5&monkey=1&max_tokens=9"},
		{"http://h/?Authorization=Bearer%20x&subscription-key=y", "http://h/?Authorization=<redacted>&subscription-key=<redacted>"},
		{"http://h/path?x=1", "http://h/path?x=1"},
	}
	for _, c := range cases {
		if got := URL(c.in); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNameAndHeader(t *testing.T) {
	cases := []struct {
		name             string
		isName, isHeader bool
	}{
		{"Authorization", true, true},
		{"x-api-key", true, true},
		{"X-Acme-Token", true, true},
		{"key", true, true},
		{"client_secret", true, true},
		{"max_tokens", false, true},  // "token" fragment: a header, not an extra input
		{"session_id", false, true},  // AIPerf's "session" header fragment
		{"x-csrf-token", true, true}, // -token suffix
		{"temperature", false, false},
		{"Content-Type", false, false},
	}
	for _, c := range cases {
		if got := Name(c.name); got != c.isName {
			t.Errorf("Name(%q) = %v, want %v", c.name, got, c.isName)
		}
		if got := Header(c.name); got != c.isHeader {
			t.Errorf("Header(%q) = %v, want %v", c.name, got, c.isHeader)
		}
	}
}
