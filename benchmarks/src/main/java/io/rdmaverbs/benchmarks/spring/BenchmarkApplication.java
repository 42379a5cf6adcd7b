package io.rdmaverbs.benchmarks.spring;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * The smallest application using the starter: auto-configuration only, no component scan, no beans of
 * its own. Everything measured comes from the starter, Spring Boot and the generated declarations.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class BenchmarkApplication {
}
