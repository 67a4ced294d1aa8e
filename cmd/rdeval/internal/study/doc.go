// Package study is the glue between the stages: a loaded dataset
// (package ingest) in, typed results of package analysis out. It knows no
// cobra, no flags and no io.Writer. Each statistic is a function
// X(ds, XParams) (XResult, error); the caveats that do not block a result
// are Warnings []error on it, which the command prints (iostreams.Warn)
// and the report and figures collect. Commands turn flags into params,
// call study and format the result; no command package imports another.
package study
