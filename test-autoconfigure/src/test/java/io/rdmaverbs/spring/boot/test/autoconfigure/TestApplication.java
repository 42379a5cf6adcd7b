package io.rdmaverbs.spring.boot.test.autoconfigure;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * The application every test here finds by package search. A {@code @SpringBootTest} auto-configures
 * everything on the class path; a slice such as {@code @WebMvcTest} switches this
 * {@code @EnableAutoConfiguration} off and imports only its own auto-configurations.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class TestApplication {
}
