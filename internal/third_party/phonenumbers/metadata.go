package phonenumbers

import _ "embed"

//go:embed data/countrycode_to_region.xml.gz
var regionData []byte

//go:embed data/metadata.xml.gz
var numberData []byte

//go:embed data/prefix_to_timezone.xml.gz
var timezoneData []byte

//go:embed data/shortnumber_metadata.xml.gz
var shortNumberData []byte
