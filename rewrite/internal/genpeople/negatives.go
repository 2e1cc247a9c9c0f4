package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolfold/toolfold/rewrite/internal/casegen"
)

// Name-free texts: products and companies named after people or looking
// like names, code, tool descriptions, objects whose "name" is a thing.
var nameFree = []string{
	"John Deere 5075E utility tractor, 75 hp, in stock.",
	"Run the unit tests with Jest: npx jest --coverage",
	"Open Claude Desktop and add the server to claude_desktop_config.json.",
	"Deploy with Jenkins, then check the Grafana dashboard.",
	"Ruby on Rails 7.1 ships with Hotwire by default.",
	"Built with Visual Studio Code and GitHub Actions.",
	"Harley-Davidson reported record quarterly revenue.",
	"Morgan Stanley and Goldman Sachs led the offering.",
	"Wells Fargo raised its prime rate.",
	"Install Apache Kafka and Apache Spark on the cluster.",
	"The Django admin lists every model registered with admin.site.register.",
	"Use Bootstrap's grid: col-md-6 on each card.",
	"Mercedes Benz Stadium hosts the final.",
	"Order a Big Mac and a McFlurry at McDonald's.",
	"Set up Sentry and Datadog for error tracking.",
	"Kubernetes Deployment rolled out; Helm Chart version 3.2.1.",
	"Red Hat Enterprise Linux 9 is supported.",
	"func (s *Server) Handle(ctx context.Context, req *Request) error { return nil }",
	"import React, { useState } from 'react';\nexport default function App() { return <Main />; }",
	"class UserRepository extends BaseRepository { findByEmail(email) {} }",
	"SELECT first_name, last_name FROM users WHERE id = $1;",
	"Creates a GitHub issue in the given repository. Requires title; body is Markdown.",
	"Searches Google Drive files by name and returns their IDs.",
	"Sends a message to a Slack channel. Use channel IDs, not names.",
	"Lists the open pull requests of a repository, newest first.",
	"Returns the weather forecast for a city for the next seven days.",
	"Query Amazon Redshift with SQL and return rows as JSON.",
	"The Golden Gate Bridge opened in 1937.",
	"Spring Boot Starter Web pulls in Tomcat and Jackson.",
	"Read the New York Times and the Wall Street Journal.",
	"Microsoft Teams and Google Meet both support breakout rooms.",
	"Tesla Model Y deliveries rose in March.",
	"Ask Siri or Alexa to set a timer.",
	"Black Friday sale: Samsung Galaxy phones 20% off.",
	"Lincoln Center hosts the Jazz at Lincoln Center Orchestra.",
	"Georgia Tech beat Virginia Tech on Saturday.",
	"The Victoria Line is closed between Brixton and Stockwell.",
	"Use Adobe Photoshop or Affinity Photo to crop the image.",
	"Hello World! This is a Markdown README for the toolfold project.",
	"Warning: Unhandled Promise Rejection in Worker Thread.",
	"Error: Cannot Find Module 'express' from Server.js",
	"Chapter One: Getting Started With Go Modules",
	"Happy New Year from the whole Platform Team!",
	"Thanks, Team — Release Notes follow below.",
	"Merge branch 'main' into feature/Add-Login-Page",
	"Saint Louis Bread Company and Panera Bread are the same chain.",
	"Kirk Douglas Theatre box office opens at noon.",
	"Pizza Hut and Taco Bell belong to Yum Brands.",
}

var thingObjects = []string{
	`{"name":"toolfold","full_name":"acme/toolfold","private":false,"owner":{"login":"acme","type":"Organization"},"description":"MCP proxy"}`,
	`{"name":"create_issue","description":"Create a new issue","inputSchema":{"type":"object"}}`,
	`{"name":"README.md","path":"docs/README.md","size":2048,"type":"file"}`,
	`{"name":"Operations","key":"OPS","projectTypeKey":"software"}`,
	`{"name":"In Progress","statusCategory":{"name":"In Progress","key":"indeterminate"}}`,
	`{"name":"us-east-1","displayName":"US East (N. Virginia)"}`,
	`{"name":"Pro Plan","amount":2900,"currency":"usd","interval":"month"}`,
	`{"name":"Jasmine Green Tea","sku":"TEA-114","price":4.5}`,
	`{"name":"Madison","type":"city","country":"US"}`,
	`{"channel":{"name":"general","topic":"Company-wide announcements"}}`,
	`{"label":{"name":"good first issue","color":"7057ff"}}`,
	`{"name":"Victoria","kind":"StorageClass","provisioner":"ebs.csi.aws.com"}`,
	`{"package":{"name":"express","version":"4.19.2","license":"MIT"}}`,
	`{"font":{"name":"Georgia","size":12}}`,
	`{"owner":"platform-team","service":"billing-api","tier":"gold"}`,
	`{"from":"2026-01-01","to":"2026-01-31","granularity":"day"}`,
	`{"from":"main","to":"release/1.4","commits":12}`,
	`{"customer":"cus_Nffrfe9Oa1q8qZ","amount":1200,"status":"succeeded"}`,
	`{"author":"dependabot[bot]","message":"Bump lodash from 4.17.20 to 4.17.21"}`,
	`{"assignee":null,"labels":["bug"],"milestone":{"title":"v1.2"}}`,
}

func (g *gen) negatives() {
	for _, t := range g.half(nameFree) {
		g.add("name-free", t)
	}
	for _, t := range g.half(thingObjects) {
		g.add("things", t)
	}
}

// splitPresidio writes presidio_names_{develop,holdout}: Presidio's
// sentences with their PERSON spans as NAME and STREET_ADDRESS as ADDRESS,
// on the split presidio_{develop,holdout} already made (same ids).
func splitPresidio(dir, src string) {
	b, err := os.ReadFile(src)
	if err != nil {
		log.Fatalf("%v (Presidio's synth_dataset_v2.json: -presidio PATH)", err)
	}
	var rows []struct {
		FullText string `json:"full_text"`
		Spans    []struct {
			Type  string `json:"entity_type"`
			Value string `json:"entity_value"`
		} `json:"spans"`
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		log.Fatal(err)
	}
	for _, half := range []string{"develop", "holdout"} {
		ids, err := casegen.Read(filepath.Join(dir, "presidio_"+half+".cases.jsonl"))
		if err != nil {
			log.Fatal(err)
		}
		var out []casegen.Case
		for _, c := range ids {
			var n int
			if _, err := fmt.Sscanf(strings.TrimPrefix(c.ID, "presidio-synth-"), "%d", &n); err != nil {
				log.Fatalf("%s: %v", c.ID, err)
			}
			row := rows[n]
			nc := casegen.Case{ID: c.ID, Text: row.FullText, Tags: []string{"presidio_synth_v2"}}
			for _, s := range row.Spans {
				switch s.Type {
				case "PERSON":
					nc.Spans = append(nc.Spans, casegen.Span{Type: "NAME", Value: s.Value})
				case "STREET_ADDRESS":
					nc.Spans = append(nc.Spans, casegen.Span{Type: "ADDRESS", Value: s.Value})
				}
			}
			out = append(out, nc)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
		write(filepath.Join(dir, "presidio_names_"+half+".cases.jsonl"), out)
	}
}
