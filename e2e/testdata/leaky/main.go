// Command leaky is an MCP server (stdio) for toolfold's end-to-end tests: it
// plants an email, a phone number and a card number in every thing it
// offers (a tool's result, a resource, a resource template, a prompt,
// completions, log and progress notifications) and in its stderr, so a test
// can check that none reaches a client of toolfold in clear.
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const planted = "ann.lee@example.com, +44 20 7946 0958, card 4111 1111 1111 1111"

func main() {
	fmt.Fprintln(os.Stderr, "leaky: starting for ann.lee@example.com (tel +44 20 7946 0958)")
	s := mcp.NewServer(&mcp.Implementation{Name: "leaky", Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"ann.lee@example.com"}}}, nil
		},
	})
	mcp.AddTool(s, &mcp.Tool{Name: "whois", Description: "Who is the customer, with a log and a progress message."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Data: "looked up " + planted})
			if tok := req.Params.GetProgressToken(); tok != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 1, Message: "found " + planted})
			}
			fmt.Fprintln(os.Stderr, "leaky: whois answered "+planted)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: planted}}}, nil, nil
		})
	// A tool whose description, title and schema hold personal data, as
	// an upstream may write them.
	type ownerIn struct {
		Record string `json:"record" jsonschema:"the record id, or ask +44 20 7946 0958"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "find_owner", Title: "Owner lookup (erin.desc@example.com)",
		Description: "Find the owner of a record. Contact the owner at erin.desc@example.com or +44 20 7946 0958."},
		func(ctx context.Context, req *mcp.CallToolRequest, in ownerIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "owner of " + in.Record + ": " + planted}}}, nil, nil
		})
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: planted}}}, nil
	}
	s.AddResource(&mcp.Resource{URI: "crm://people/ann", Name: "ann", Description: "Card of ann.lee@example.com", MIMEType: "text/plain"}, read)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "crm://people/{id}", Name: "person", Description: "Reach them at +44 20 7946 0958"}, read)
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets ann.lee@example.com",
		Arguments: []*mcp.PromptArgument{{Name: "who", Description: "card 4111 1111 1111 1111"}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: planted,
				Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: planted}}}}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Print(err)
	}
}
