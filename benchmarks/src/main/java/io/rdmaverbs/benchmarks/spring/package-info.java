/**
 * The Spring Boot starter at scale, on the simulated provider: the health it registers over 1k, 10k and
 * 100k resources, the start and close of a minimal application declaring 0 to 1,000 resources, and the
 * heap retained per declared resource.
 */
package io.rdmaverbs.benchmarks.spring;
