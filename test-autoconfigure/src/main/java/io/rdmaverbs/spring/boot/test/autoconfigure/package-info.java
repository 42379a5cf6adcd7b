/**
 * Test support for applications using rdma-verbs, without RDMA hardware or native code:
 * {@link io.rdmaverbs.spring.boot.test.autoconfigure.SimulatedVerbs} runs a {@code @SpringBootTest} on
 * the simulated provider, and
 * {@link io.rdmaverbs.spring.boot.test.autoconfigure.AutoConfigureSimulatedVerbs} brings the verbs
 * beans into a test slice such as {@code @WebMvcTest};
 * {@link io.rdmaverbs.spring.boot.test.autoconfigure.InjectFault} and
 * {@link io.rdmaverbs.spring.boot.test.autoconfigure.SimulatedFaults} make its verbs fail, at startup or
 * later. Shipped in {@code rdma-verbs-spring-boot-test},
 * never in the production jars.
 */
@NullMarked
package io.rdmaverbs.spring.boot.test.autoconfigure;

import org.jspecify.annotations.NullMarked;
