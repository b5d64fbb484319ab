module github.com/diagagent/diagagent

go 1.26.0

require (
	github.com/chromedp/chromedp v0.22.1
	github.com/cockroachdb/datadriven v1.0.3
	github.com/go-viper/mapstructure/v2 v2.4.0
	github.com/gosnmp/gosnmp v1.47.0
	github.com/prometheus-community/pro-bing v0.9.1
	github.com/prometheus/client_model v0.6.3
	github.com/prometheus/common v0.72.0
	github.com/sirupsen/logrus v1.10.2
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/net v0.59.0
	golang.org/x/sys v0.48.0
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
