/**
 * poll, notify and post at four levels on the do-nothing provider {@code libfakeverbs.so}: the C loop
 * ({@link io.rdmaverbs.benchmarks.hotpath.CLoop}), the bare FFM downcall
 * ({@link io.rdmaverbs.benchmarks.hotpath.RawDowncall}), the provider SPI
 * ({@link io.rdmaverbs.benchmarks.hotpath.ProviderCalls}) and the project's API
 * ({@link io.rdmaverbs.benchmarks.hotpath.ApiCalls}).
 */
package io.rdmaverbs.benchmarks.hotpath;
