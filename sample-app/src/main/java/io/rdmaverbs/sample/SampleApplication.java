package io.rdmaverbs.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A web application whose RDMA resources are all declared in {@code application.yml} and injected:
 * see {@code exchange/} for what it does with them and {@code web/} for the HTTP side.
 */
@SpringBootApplication
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
