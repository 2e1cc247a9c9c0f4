package rewrite

import "testing"

// TestBoundaries: a value starts and ends after any punctuation, ASCII or
// not (a CSV comma, «quotes», an arrow), and an address keeps its
// apostrophe but not the quotes around it.
func TestBoundaries(t *testing.T) {
	d := mustDetector(t, Defaults())
	for _, tc := range []struct{ in, want string }{
		{"name,4111111111111111,2024", "CREDIT_CARD:4111111111111111"},
		{"name,554-60-0088,2024", "US_SSN:554-60-0088"},
		{"GET /cards/4111111111111111/charge", "CREDIT_CARD:4111111111111111"},
		{"3/4111111111111111", ""},
		{"Copied: «4111 1111 1111 1111».", "CREDIT_CARD:4111 1111 1111 1111"},
		{"field → 536-22-1234", "US_SSN:536-22-1234"},
		{"«anna@example.com»", "EMAIL:anna@example.com"},
		{"«AKIAIOSFODNN7EXAMPLE»", "SECRET:AKIAIOSFODNN7EXAMPLE"},
		{"«npm_C5nSUDt4FmhFmfoGD5UZLYLam73yLIzvcv12»", "SECRET:npm_C5nSUDt4FmhFmfoGD5UZLYLam73yLIzvcv12"}, // a gitleaks rule
		{"電話：03-1234-5678。", "PHONE:03-1234-5678"},
		{"«2001:db8:1::2»", "IP_ADDRESS:2001:db8:1::2"},
		{"「203.0.113.9」", "IP_ADDRESS:203.0.113.9"},
		{"v=203.0.113.9;", "IP_ADDRESS:203.0.113.9"},
		{"addr:::ffff:192.0.2.128", "IP_ADDRESS:::ffff:192.0.2.128"},
		{"Mary.O'Neil@example.com", "EMAIL:Mary.O'Neil@example.com"},
		{"'anna@example.com'", "EMAIL:anna@example.com"},
		{"total 1,234,567", ""},
		{"RuPay 8100000000000002, Troy 9792000000000003", "CREDIT_CARD:8100000000000002 | CREDIT_CARD:9792000000000003"},
		{"git@github.com:acme/tool.git", ""},
		{"ssh://git@host.example.com:22/repo", ""},
		{"icon@2x.png", ""},
		{"us..er@example.com", ""},
	} {
		if got := found(d, tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSecretFormats: provider formats with a fixed shape, a secret URL
// with its scheme, and documentation placeholders left alone.
func TestSecretFormats(t *testing.T) {
	d := mustDetector(t, Defaults())
	for _, tc := range []struct{ in, want string }{
		{"x 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 y", "SECRET: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"},
		{"ya29.a0AfH6SMBx3k9Qz_Lp2vN8rT4wY7uE1oI5", "SECRET:ya29.a0AfH6SMBx3k9Qz_Lp2vN8rT4wY7uE1oI5"},
		{`"key-3ef091d81ac37b61743704d1a915f78b"`, "SECRET:key-3ef091d81ac37b61743704d1a915f78b"},
		{"k,1c2e92ec02eb684a318905a940c6feea-us19,", "SECRET:1c2e92ec02eb684a318905a940c6feea-us19"},
		{"sbp_6a1c7dcd852cca9c515690ae4eb2e617ba17fa1d", "SECRET:sbp_6a1c7dcd852cca9c515690ae4eb2e617ba17fa1d"},
		{"dp.st.XFMIzs0LUOquK5ON8fwCG8RdYjWsAvNlGSvUAqMkrcb", "SECRET:dp.st.XFMIzs0LUOquK5ON8fwCG8RdYjWsAvNlGSvUAqMkrcb"},
		{"secret_iKr8PSpxLZvbKFP7QAUqaKhOIXdsydDZx3WoPaKWzS3", "SECRET:secret_iKr8PSpxLZvbKFP7QAUqaKhOIXdsydDZx3WoPaKWzS3"},
		{"url=https://hooks.slack.com/services/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",
			"SECRET:https://hooks.slack.com/services/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"},
		{"GROQ_API_KEY=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", "SECRET: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"},
		{"r8_xmE1bTnDcbJvWS96eOtnuADOsnjknkzAlQOCf", "SECRET:r8_xmE1bTnDcbJvWS96eOtnuADOsnjknkzAlQOCf"},
		{"whsec_ommPvWcnQIWXDA1E9mY5J6WtMvR89EEs", "SECRET:whsec_ommPvWcnQIWXDA1E9mY5J6WtMvR89EEs"},
		{"xai-OwKNC4uLXOyRCI2frpNOe9m5X4DkMpoUFStMJZppuMYfYIExWZAAPwX0yVSEQUyvhdCPLSZTh2LZg7GB", "SECRET:xai-OwKNC4uLXOyRCI2frpNOe9m5X4DkMpoUFStMJZppuMYfYIExWZAAPwX0yVSEQUyvhdCPLSZTh2LZg7GB"},
		{"secret: sk_live_xxxxxxxxxxxxxxxx", ""},
		{"ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", ""},
		{"secret_key_name_that_is_long_enough_to_be_43_chars", ""},
		{"cache key-d41d8cd98f00b204e9800998ecf8427", ""}, // 31 hex digits
		{"d41d8cd98f00b204e9800998ecf8427e", ""},
	} {
		if got := found(d, tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestPhoneForms: words of several languages (and camelCase keys) mark a
// number as a phone number; numbers dialled from abroad ("00 44 …") and
// national prints with dots need none.
func TestPhoneForms(t *testing.T) {
	d := mustDetector(t, Defaults())
	for _, tc := range []struct{ in, want string }{
		{"Telefon: 8123 4567", "PHONE:8123 4567"},
		{"Téléphone 8123 4567", "PHONE:8123 4567"},
		{"móvil 8123 4567", "PHONE:8123 4567"},
		{"телефон 8123 4567", "PHONE:8123 4567"},
		{`{"mobileNumber": "8123 4567"}`, "PHONE:8123 4567"},
		{"8123 4567 (office)", "PHONE:8123 4567"},
		{"Ticket: 8123 4567", ""},
		{"order no. 020 7946 0958", ""},
		{"Tel.:030/1234567", "PHONE:030/1234567"},
		{"Tel: 030/123 456 78", "PHONE:030/123 456 78"},
		{"see 030/1234567", ""},
		{"tel 01/15/2024", ""},
		{"phone no. 020 7946 0958", "PHONE:020 7946 0958"},
		{"Please ring 00 33 6 12 34 56 78 after 6pm.", "PHONE:00 33 6 12 34 56 78"},
		{"phone 011 49 1512 3456789", "PHONE:011 49 1512 3456789"},
		{"ref 00 99 12 34 56 78", ""}, // no country 99
		{"tel: 0976.01.23.45", "PHONE:0976.01.23.45"},
		{"see 01.23.45.67.89", "PHONE:01.23.45.67.89"},
		{"Telefone: 850.12.345", "PHONE:850.12.345"},
		{"Niue +683 7012", "PHONE:+683 7012"},
		{"Tel: 51234", "PHONE:51234"},
		{"phone=(06 1) 234 5841", "PHONE:(06 1) 234 5841"},
		{"Mobile (0-312) 34513", "PHONE:(0-312) 34513"},
		{"phone 71 225", "PHONE:71 225"},
		{"Telefon: 90.11.23.66", "PHONE:90.11.23.66"},
		{"order 51234", ""},
		{"Call 20000 failed", ""},
		{"call me in 20 minutes about 51234", ""},
		{"host 90.11.23.66", "IP_ADDRESS:90.11.23.66"},
		{"GET /hosts/90.11.23.66 200", "IP_ADDRESS:90.11.23.66"},
		{"from 97.129.179.138:443", "IP_ADDRESS:97.129.179.138"},
		{"hosts: 10.0.0.1 10.0.0.2", "IP_ADDRESS:10.0.0.1 | IP_ADDRESS:10.0.0.2"},
		{"client 10.1.2.3 200 OK", "IP_ADDRESS:10.1.2.3"},
		{"allow 192.168.1.0/24", "IP_ADDRESS:192.168.1.0"},
		{"route 0.0.0.0/0", ""},
		{"version 10.2.3.4 5", ""},
		// National prints with no word: a bracketed area code with its
		// trunk '0', a trunk digit before a bracketed area code.
		{"I wrote down (0642) 1393573 yesterday.", "PHONE:(0642) 1393573"},
		{"8 (930) 641-40-92", "PHONE:8 (930) 641-40-92"},
		{"(2023) 1393573", ""},
		{"see 3 (4) 5678 9012", ""},
		// A card or an SSN followed by a number the run took in.
		{"card 4111 1111 1111 1111 12/26", "CREDIT_CARD:4111 1111 1111 1111"},
		{"4111111111111111 123", "CREDIT_CARD:4111111111111111"},
		{"5555 5555 5555 4444 2026", "CREDIT_CARD:5555 5555 5555 4444"},
		{"ssn 536-22-1234 1985", "US_SSN:536-22-1234"},
		{"card number 5555 3412 4444 1118", ""},
		{"card number 5555 3412 4444 1118 12/26", ""},
		{"Text me at 70.123.45.67", "PHONE:70.123.45.67"},
		{"ping 70.123.45.67", "IP_ADDRESS:70.123.45.67"},
		{"contact 10.1.2.3 first", "IP_ADDRESS:10.1.2.3"},
		{"+123 4567", ""},
		{"score +33 12345", ""},
		{"phone 0049 30 1234567", "PHONE:0049 30 1234567"},
		{"tel=%2B44%2020%207946%200958", "PHONE:%2B44%2020%207946%200958"},
		{"card=4111%201111%201111%201111", "CREDIT_CARD:4111%201111%201111%201111"},
		// A country code in brackets; a slash after the area code.
		{"mobile (+62) 812 3456 789", "PHONE:(+62) 812 3456 789"},
		{"(+44) 20 7946 0958", "PHONE:(+44) 20 7946 0958"},
		{"Call me at +36 20/986-4112", "PHONE:+36 20/986-4112"},
		{"+49 30/1234/567", ""},
		{"(+99) 12 34 56", ""},
		// A '+' number of a length its country does not use is still
		// the number a word names, '+' included.
		{"Tel. +9949426123471", "PHONE:+9949426123471"},
		{"score +9949426123471", ""},
		// Extensions apart from the number; the prefix for dialling
		// abroad glued to the country code.
		{"Tel. (702) 360-1716 x20278", "PHONE:(702) 360-1716 x20278"},
		{"call +1 415 555 0132 ext. 22 today", "PHONE:+1 415 555 0132 ext. 22"},
		{"phone 020 7946 0958 ext 7, desk", "PHONE:020 7946 0958 ext 7"},
		{"phone 020 7946 0958 extra", "PHONE:020 7946 0958"},
		{"You can reach her on 00389 2 975 1108.", "PHONE:00389 2 975 1108"},
		{"ref 00389 2 975 1108", ""},
	} {
		if got := found(d, tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}
