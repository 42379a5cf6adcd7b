/**
 * Test support: {@link io.rdmaverbs.spring.boot.autoconfigure.test.SimulatedVerbs} runs a
 * {@code @SpringBootTest} on the simulated provider, without RDMA hardware.
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.test;

import org.jspecify.annotations.NullMarked;
