package fakeupstream

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// ACSNewestYear is the newest ACS 5-year release the ACS fake's discovery
// document lists unless told otherwise: the vintage the upstream reference
// recordings were made with.
const ACSNewestYear = 2022

// ACSDiscoveryPath is where the Census data API's discovery document is,
// relative to the data API's base URL: {base}.json, which for the real
// base URL https://api.census.gov/data is https://api.census.gov/data.json.
const ACSDiscoveryPath = ".json"

// ACSDiscovery is the route of the Census data API's discovery document,
// listing an acs/acs5 dataset (the detailed tables) for each of years,
// beside the kinds of datasets that are not it, as the real document holds
// them: acs/acs1 and acs/acs5/profile a year newer than the newest of
// years, and a timeseries dataset, which has no c_vintage.
//
// The document is the real one's shape (DCAT-US, Project Open Data 1.1):
// a dcat:Catalog whose dataset array holds dcat:Dataset entries with
// c_vintage (a JSON number), c_dataset (the path under /data/<vintage>/ as
// a list), c_isAvailable, the c_*Link members, title, identifier and a
// distribution whose accessURL is the API endpoint written with http://,
// as the real document writes it. Only those members matter to clients;
// descriptions are shortened.
func ACSDiscovery(years ...int) Route {
	newest := 0
	var sets []acsDataset
	for _, y := range years {
		sets = append(sets, acsDatasetOf(y, "acs", "acs5"))
		newest = max(newest, y)
	}
	if newest > 0 {
		sets = append(sets, acsDatasetOf(newest+1, "acs", "acs1"), acsDatasetOf(newest+1, "acs", "acs5", "profile"))
	}
	ts := acsDatasetOf(0, "timeseries", "eits", "resconst")
	ts.Title, ts.Description = "Time Series Economic Indicators Time Series -: New Residential Construction", "New Residential Construction"
	ts.Identifier, ts.Timeseries = "https://api.census.gov/data/id/EITSRESCONST", true
	sets = append(sets, ts)
	body, err := json.MarshalIndent(acsCatalog{
		Context:     "https://project-open-data.cio.gov/v1.1/schema/catalog.jsonld",
		ID:          "http://api.census.gov/data.json",
		Type:        "dcat:Catalog",
		ConformsTo:  "https://project-open-data.cio.gov/v1.1/schema",
		DescribedBy: "https://project-open-data.cio.gov/v1.1/schema/catalog.json",
		Dataset:     sets,
	}, "", "  ")
	if err != nil {
		panic(err) // plain structs always marshal
	}
	return Route{Method: http.MethodGet, Path: ACSDiscoveryPath}.Answering(reply(http.StatusOK, "application/json;charset=utf-8", body))
}

// ACSDiscoveryError is the discovery document's route failing with status
// and a plain-text body.
func ACSDiscoveryError(status int) Route {
	return Route{Method: http.MethodGet, Path: ACSDiscoveryPath}.Answering(acsText(status, http.StatusText(status)))
}

type acsCatalog struct {
	Context     string       `json:"@context"`
	ID          string       `json:"@id"`
	Type        string       `json:"@type"`
	ConformsTo  string       `json:"conformsTo"`
	DescribedBy string       `json:"describedBy"`
	Dataset     []acsDataset `json:"dataset"`
}

type acsDataset struct {
	Vintage       int               `json:"c_vintage,omitempty"`
	Dataset       []string          `json:"c_dataset"`
	GeographyLink string            `json:"c_geographyLink"`
	VariablesLink string            `json:"c_variablesLink"`
	GroupsLink    string            `json:"c_groupsLink"`
	ExamplesLink  string            `json:"c_examplesLink"`
	Documentation string            `json:"c_documentationLink"`
	Aggregate     bool              `json:"c_isAggregate"`
	Timeseries    bool              `json:"c_isTimeseries,omitempty"`
	Available     bool              `json:"c_isAvailable"`
	Type          string            `json:"@type"`
	Title         string            `json:"title"`
	AccessLevel   string            `json:"accessLevel"`
	BureauCode    []string          `json:"bureauCode"`
	Description   string            `json:"description"`
	Distribution  []acsDistribution `json:"distribution"`
	Identifier    string            `json:"identifier"`
	License       string            `json:"license"`
}

type acsDistribution struct {
	Type        string `json:"@type"`
	AccessURL   string `json:"accessURL"`
	Description string `json:"description"`
	Format      string `json:"format"`
	MediaType   string `json:"mediaType"`
	Title       string `json:"title"`
}

// acsDatasetOf is the discovery entry of the dataset at path in year
// (0: a dataset without vintage, a time series).
func acsDatasetOf(year int, path ...string) acsDataset {
	at := "http://api.census.gov/data/" + strings.Join(path, "/")
	if year > 0 {
		at = fmt.Sprintf("http://api.census.gov/data/%d/%s", year, strings.Join(path, "/"))
	}
	title, id := "American Community Survey: 5-Year Estimates: Detailed Tables 5-Year", "ACSDT5Y"
	switch strings.Join(path, "/") {
	case "acs/acs1":
		title, id = "American Community Survey: 1-Year Estimates: Detailed Tables 1-Year", "ACSDT1Y"
	case "acs/acs5/profile":
		title, id = "American Community Survey: 5-Year Estimates: Data Profiles 5-Year", "ACSDP5Y"
	}
	return acsDataset{
		Vintage: year, Dataset: path,
		GeographyLink: at + "/geography.json", VariablesLink: at + "/variables.json",
		GroupsLink: at + "/groups.json", ExamplesLink: at + "/examples.json",
		Documentation: "https://www.census.gov/developer/", Aggregate: true, Available: true,
		Type: "dcat:Dataset", Title: title, AccessLevel: "public", BureauCode: []string{"006:07"},
		Description: "The American Community Survey (ACS) is an ongoing survey that provides data every year.",
		Distribution: []acsDistribution{{Type: "dcat:Distribution", AccessURL: at, Description: "API endpoint",
			Format: "API", MediaType: "application/json", Title: "API endpoint"}},
		Identifier: fmt.Sprintf("https://api.census.gov/data/id/%s%d", id, year),
		License:    "https://creativecommons.org/publicdomain/zero/1.0/",
	}
}
