/**
 * The resource graph at 1k, 10k and 100k resources on the simulated provider: queries, creation,
 * cascade teardown, and the heap retained per resource.
 */
package io.rdmaverbs.benchmarks.scale;
