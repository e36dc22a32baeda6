package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest/sandbox"
	"github.com/propertyd/propertyd/store/engine"
)

// alleghenyHeader is the header of Allegheny County's assessment file as
// WPRDC publishes it (the allegheny preset's columns, and the others of
// the file, which a load reads past): the load bench writes its rows in
// it, every column present.
var alleghenyHeader = strings.Split("PARID,PROPERTYHOUSENUM,PROPERTYFRACTION,PROPERTYADDRESS,PROPERTYCITY,PROPERTYSTATE,PROPERTYUNIT,PROPERTYZIP,MUNICODE,MUNIDESC,SCHOOLCODE,SCHOOLDESC,LEGAL1,LEGAL2,LEGAL3,NEIGHCODE,NEIGHDESC,TAXCODE,TAXDESC,TAXSUBCODE,TAXSUBCODE_DESC,OWNERCODE,OWNERDESC,CLASS,CLASSDESC,USECODE,USEDESC,LOTAREA,HOMESTEADFLAG,CLEANGREEN,FARMSTEADFLAG,ABATEMENTFLAG,RECORDDATE,SALEDATE,SALEPRICE,SALECODE,SALEDESC,DEEDBOOK,DEEDPAGE,PREVSALEDATE,PREVSALEPRICE,PREVSALEDATE2,PREVSALEPRICE2,CHANGENOTICEADDRESS1,CHANGENOTICEADDRESS2,CHANGENOTICEADDRESS3,CHANGENOTICEADDRESS4,COUNTYBUILDING,COUNTYLAND,COUNTYTOTAL,COUNTYEXEMPTBLDG,LOCALBUILDING,LOCALLAND,LOCALTOTAL,FAIRMARKETBUILDING,FAIRMARKETLAND,FAIRMARKETTOTAL,STYLE,STYLEDESC,STORIES,YEARBLT,EXTERIORFINISH,EXTFINISH_DESC,ROOF,ROOFDESC,BASEMENT,BASEMENTDESC,GRADE,GRADEDESC,CONDITION,CONDITIONDESC,CDU,CDUDESC,TOTALROOMS,BEDROOMS,FULLBATHS,HALFBATHS,HEATINGCOOLING,HEATINGCOOLINGDESC,FIREPLACES,BSMTGARAGE,FINISHEDLIVINGAREA,CARDNUMBER,ALT_ID,TAXYEAR,ASOFDATE", ",")

// assessorRow is one row of the load bench's file: the i-th parcel, on
// street (its house number from i), in zip.
func assessorRow(i int, street, zip string) []string {
	col := map[string]string{
		"PARID": fmt.Sprintf("%016d", i), "PROPERTYHOUSENUM": strconv.Itoa(100 + i/loadZips), "PROPERTYFRACTION": " ",
		"PROPERTYADDRESS": street, "PROPERTYCITY": "BENCHVILLE", "PROPERTYSTATE": "PA", "PROPERTYUNIT": " ",
		"PROPERTYZIP": zip, "CLASS": "R", "CLASSDESC": "RESIDENTIAL", "USEDESC": "SINGLE FAMILY",
		"LOTAREA": strconv.Itoa(2000 + i%8000), "STORIES": []string{"1", "1.5", "2", "2.5"}[i%4],
		"YEARBLT": strconv.Itoa(1890 + i%130), "BEDROOMS": strconv.Itoa(1 + i%5), "FULLBATHS": strconv.Itoa(1 + i%3),
		"HALFBATHS": strconv.Itoa(i % 2), "FINISHEDLIVINGAREA": strconv.Itoa(700 + i%3000), "CARDNUMBER": "1",
		"TAXYEAR": "2026", "ASOFDATE": "30-SEP-26",
	}
	out := make([]string, len(alleghenyHeader))
	for j, h := range alleghenyHeader {
		out[j] = col[h]
	}
	return out
}

// loadZips is how many ZIP codes the load bench's parcels spread over.
const loadZips = 100

func loadZip(i int) string { return strconv.Itoa(15001 + i%loadZips) }

// writeAssessorFile writes n rows: the even ones on BENCH ST (whose
// records seedLoadRecords creates), the odd ones on OTHER ST (no record:
// they wait for their lookup).
func writeAssessorFile(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w := csv.NewWriter(bw)
	w.Write(alleghenyHeader)
	for i := range n {
		street := "BENCH ST"
		if i%2 == 1 {
			street = "OTHER ST"
		}
		w.Write(assessorRow(i, street, loadZip(i)))
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// seedLoadRecords creates the records of the even rows of the load
// bench's file (n/2 of them), through the store engine: what lookups of
// those addresses would have left.
func seedLoadRecords(ctx context.Context, database string, n int) error {
	db, err := engine.Open(ctx, database, engine.Options{})
	if err != nil {
		return err
	}
	batch := make([]providers.Property, 0, seedChunk)
	for i := 0; i < n; i += 2 {
		batch = append(batch, providers.Property{
			StreetAddress: fmt.Sprintf("%d BENCH ST", 100+i/loadZips), City: "BENCHVILLE", State: "PA", ZipCode: loadZip(i),
			County: "Allegheny County", FIPSCode: "42003", CensusTract: "010300",
			Latitude: 40.44 + float64(i%1000)/100000, Longitude: -79.99 - float64(i/1000%1000)/100000, Source: "bench-seed",
		})
		if len(batch) == cap(batch) || i+2 >= n {
			if err := db.SeedProperties(ctx, batch); err != nil {
				db.Close()
				return err
			}
			batch = batch[:0]
		}
	}
	return db.Close()
}

// factsLoad is the facts-load scenario on SQLite.
func (b *bench) factsLoad(ctx context.Context) error {
	return b.factsLoadOn(ctx, "SQLite", filepath.Join(b.tmp, "facts-load.db"))
}

// pgFactsLoad is the facts-load scenario on PostgreSQL.
func (b *bench) pgFactsLoad(ctx context.Context) error {
	database, drop, err := b.pgSchema(ctx, "pg-facts-load")
	if err != nil {
		return err
	}
	if database == "" {
		b.skip(row{scenario: b.loadLabel("PostgreSQL"), target: loadTarget}, b.pgNone)
		return nil
	}
	defer drop()
	return b.factsLoadOn(ctx, "PostgreSQL", database)
}

const loadTarget = ">= 20,000 rows/s, resident memory < 300 MB"

func (b *bench) loadLabel(engineName string) string {
	return fmt.Sprintf("load %s assessor rows (allegheny columns; half join records by address, half wait) on %s",
		thousands(int64(b.o.loadRows)), engineName)
}

// factsLoadOn runs propertyd data load parcels over b.o.loadRows rows
// into database, half of which join records seeded there first, and
// reports its rows per second and its peak resident memory.
func (b *bench) factsLoadOn(ctx context.Context, engineName, database string) error {
	n := b.o.loadRows
	file := filepath.Join(b.tmp, "assessments.csv")
	if _, err := os.Stat(file); err != nil {
		b.logf("writing %s assessor rows", thousands(int64(n)))
		if err := writeAssessorFile(file, n); err != nil {
			return err
		}
	}
	b.logf("seeding %s records for the load on %s", thousands(int64(n/2)), engineName)
	if err := seedLoadRecords(ctx, database, n); err != nil {
		return err
	}
	cfg := filepath.Join(b.tmp, "facts-load.yaml")
	if err := os.WriteFile(cfg, []byte(configYAML(database, b.sbRoot, b.o.cacheMB, b.o.batchConc)), 0o644); err != nil {
		return err
	}
	out, took, hwm, err := b.runMeasured(ctx, "data", "load", "parcels", "-config", cfg, "-preset", "allegheny",
		"-as-of", "2026-09-30", "-failures", filepath.Join(b.tmp, "facts-load.failures.csv"), file)
	if err != nil {
		return err
	}
	matched := ""
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "rows matched:") {
			matched = strings.TrimSpace(strings.TrimPrefix(line, "rows matched:"))
		}
	}
	rate := float64(n) / took.Seconds()
	b.add(row{
		scenario: b.loadLabel(engineName),
		target:   loadTarget,
		measured: fmt.Sprintf("%s rows in %s: %s rows/s, %s rows matched records; peak resident memory %.0f MB",
			thousands(int64(n)), took.Round(time.Millisecond), thousands(int64(rate)), matched, float64(hwm)/(1<<20)),
		ratio: fmt.Sprintf("%.2f x 20,000 rows/s", rate/20000),
		met:   rate >= 20000 && hwm < 300<<20,
	})
	return nil
}

// runMeasured runs propertyd with args (and the run's -env) to its end
// and returns what it printed, how long it took and its peak resident
// memory; a failure carries the output.
func (b *bench) runMeasured(ctx context.Context, args ...string) (out string, took time.Duration, hwm int64, err error) {
	// The rows before this one leave dirty pages behind (the start-up row
	// seeds a million records): written back while the command runs, they
	// take its disk and CPU.
	settle()
	cmd := exec.CommandContext(ctx, b.bin, args...)
	var buf strings.Builder
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.Env = append(os.Environ(), b.o.env...)
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return "", 0, 0, err
	}
	peak := make(chan int64, 1)
	go func() { peak <- peakRSS(cmd.Process.Pid) }()
	err = cmd.Wait()
	took = time.Since(t0)
	hwm = <-peak
	if err != nil {
		return buf.String(), took, hwm, fmt.Errorf("%s: %v\n%s", strings.Join(args[:min(3, len(args))], " "), err, buf.String())
	}
	return buf.String(), took, hwm, nil
}

// peakRSS polls the peak resident memory (VmHWM) of process pid until it
// exits and returns the last figure read.
func peakRSS(pid int) int64 {
	var last int64
	for {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			return last
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				if kb > 0 {
					last = kb << 10
				}
			}
		}
		if strings.Contains(string(raw), "State:\tZ") {
			return last
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// factsWarm compares a warm lookup of a record with facts with the same
// lookup of a like record without: two synthetic places, one of which
// gets facts from a one-row assessor file loaded while propertyd serves.
func (b *bench) factsWarm(ctx context.Context) error {
	with, without := b.synth[len(b.synth)-1], b.synth[len(b.synth)-2]
	reqWith, reqWithout := get(lookupPath(with, "")), get(lookupPath(without, ""))
	for _, r := range []request{reqWith, reqWithout} {
		if _, _, err := b.fetchRecord(r, false); err != nil {
			return fmt.Errorf("first lookup: %w", err)
		}
	}
	// The pair before any facts: two like records measure apart by the
	// machine's noise alone, which this ratio calibrates away.
	cal := b.closedRounds([]*client{b.pc, b.pc}, []request{reqWith, reqWithout})
	file := filepath.Join(b.tmp, "one-parcel.csv")
	if err := writeOneParcel(file, with); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, b.bin, "data", "load", "parcels", "-config", b.cfgPath, "-preset", "allegheny",
		"-dataset", "bench-warm", "-failures", filepath.Join(b.tmp, "one-parcel.failures.csv"), file)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("loading the parcel: %v\n%s", err, out)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, body, err := b.fetchRecord(reqWith, false)
		if err != nil {
			return err
		}
		if strings.Contains(string(body), `"year_built":1931`) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the record shows no facts 30 s after the load: %.300s", body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	rs := b.closedRounds([]*client{b.pc, b.pc}, []request{reqWith, reqWithout})
	before, after := cal[0].rate()/cal[1].rate(), rs[0].rate()/rs[1].rate()
	ratio := after / before
	b.add(row{
		scenario: "warm lookup of a record with facts",
		target:   ">= 0.95 x the same lookup of a record without",
		measured: fmt.Sprintf("%s with facts vs %s for a like record without (p99 %s vs %s): %.2f; the same pair before the facts were loaded: %.2f (%s vs %s)",
			rps(rs[0].rate()), rps(rs[1].rate()), ms(rs[0].percentile(99)), ms(rs[1].percentile(99)), after, before,
			rps(cal[0].rate()), rps(cal[1].rate())),
		ratio:   fmt.Sprintf("%.2f (after / before)", ratio),
		met:     ratio >= 0.95,
		failure: failure(append(rs, cal...)...),
	})
	return nil
}

// writeOneParcel writes an assessor file in Allegheny County's columns
// with one row: place p, built in 1931.
func writeOneParcel(path string, p sandbox.Place) error {
	number, street, _ := strings.Cut(p.Street, " ")
	row := assessorRow(0, street, p.Zip)
	for j, h := range alleghenyHeader {
		switch h {
		case "PROPERTYHOUSENUM":
			row[j] = number
		case "PROPERTYCITY":
			row[j] = p.City
		case "PROPERTYSTATE":
			row[j] = p.State
		case "YEARBLT":
			row[j] = "1931"
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write(alleghenyHeader)
	w.Write(row)
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
