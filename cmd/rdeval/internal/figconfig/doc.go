// Package figconfig is the figure configs of rdeval figures and rdeval
// report --config: a YAML file of figures (ParseConfig), each computed
// through package study on the config's runs and drawn with package
// figures (Render), and written with DIR/index.json recording inputs,
// parameters and seeds (WriteAll). The commands only parse their flags and
// call it.
package figconfig
