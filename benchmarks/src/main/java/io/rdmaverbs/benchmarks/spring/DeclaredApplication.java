package io.rdmaverbs.benchmarks.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.rdmaverbs.benchmarks.scale.Population;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A generated {@code application.yml} declaring {@code n} resources on one simulated soft-RoCE device
 * ({@value #DEVICE}, the key of its context bean), in the units of {@link Population}: per unit a
 * protection domain {@code pd<i>}, a 16-entry CQ {@code cq<i>}, an RC queue pair {@code qp<i>} on both
 * with 16/16 work requests, and a 64-byte memory region {@code mr<i>} in {@code pd<i>} (which the
 * starter allocates, page-aligned, per region). The application is {@link BenchmarkApplication},
 * non-web, started the way {@code main} starts one: {@code SpringApplication.run} with the file as an
 * additional config location.
 */
public final class DeclaredApplication {

    /** The simulated device, and the key of its declared context. */
    public static final String DEVICE = "sim0";

    private final Path yaml;
    private final int resources;

    private DeclaredApplication(Path yaml, int resources) {
        this.yaml = yaml;
        this.resources = resources;
    }

    /**
     * Writes the declarations of {@code resources} resources to a temporary file: whole units, then the
     * first resources of one more (250 is 62 units, a PD and a CQ); 0 declares the device alone.
     */
    public static DeclaredApplication declaring(int resources) {
        if (resources < 0) {
            throw new IllegalArgumentException("a negative number of resources: " + resources);
        }
        try {
            Path file = Files.createTempFile("rdma-verbs-benchmark-", ".yml");
            file.toFile().deleteOnExit();
            Files.writeString(file, yaml(resources));
            return new DeclaredApplication(file, resources);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The generated file. */
    public Path file() {
        return yaml;
    }

    /** The number of declared resources, the device context not counted. */
    public int resources() {
        return resources;
    }

    /**
     * {@code SpringApplication.run}: returns once the context is refreshed and the application ready.
     *
     * @param properties further properties, as command-line arguments ({@code name=value})
     */
    public ConfigurableApplicationContext start(Map<String, String> properties) {
        SpringApplication application = new SpringApplication(BenchmarkApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setBannerMode(Banner.Mode.OFF);
        // Logging stays at Spring Boot's INFO (the teardown builds and logs its block of 1 + n lines), but
        // nothing below WARN reaches the console: the cost measured is the application's, not a terminal's.
        application.setDefaultProperties(Map.of("logging.threshold.console", "warn"));
        List<String> args = new ArrayList<>();
        args.add("--spring.config.additional-location=file:" + yaml.toAbsolutePath());
        properties.forEach((k, v) -> args.add("--" + k + "=" + v));
        return application.run(args.toArray(String[]::new));
    }

    public ConfigurableApplicationContext start() {
        return start(Map.of());
    }

    /** Deletes the file. */
    public void delete() {
        try {
            Files.deleteIfExists(yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The text of the file: what an application declaring those {@code resources} would write. */
    static String yaml(int resources) {
        // The i-th resource is the (i % 4)-th of unit i / 4: PD, CQ, QP, MR.
        int pds = (resources + 3) / 4;
        int cqs = (resources + 2) / 4;
        int qps = (resources + 1) / 4;
        int mrs = resources / 4;
        StringBuilder sb = new StringBuilder(256 + resources * 80);
        sb.append("rdma:\n")
                .append("  verbs:\n")
                .append("    provider: simulated\n")
                .append("    simulated:\n")
                .append("      devices:\n")
                .append("        ").append(DEVICE).append(":\n")
                .append("          profile: rxe\n")
                .append("    devices:\n")
                .append("      ").append(DEVICE).append(":\n")
                .append("        port: 1\n");
        if (pds > 0) {
            sb.append("        protection-domains:\n");
            for (int i = 0; i < pds; i++) {
                sb.append("          - pd").append(i).append('\n');
            }
        }
        if (cqs > 0) {
            sb.append("        completion-queues:\n");
            for (int i = 0; i < cqs; i++) {
                sb.append("          cq").append(i).append(": { entries: 16 }\n");
            }
        }
        if (qps > 0) {
            sb.append("        queue-pairs:\n");
            for (int i = 0; i < qps; i++) {
                sb.append("          qp").append(i).append(": { type: rc, protection-domain: pd").append(i)
                        .append(", send-cq: cq").append(i).append(", recv-cq: cq").append(i)
                        .append(", max-send-wr: 16, max-recv-wr: 16 }\n");
            }
        }
        if (mrs > 0) {
            sb.append("        memory-regions:\n");
            for (int i = 0; i < mrs; i++) {
                sb.append("          mr").append(i).append(": { protection-domain: pd").append(i)
                        .append(", size: ").append(Population.regionBytes()).append("B, access: [local-write] }\n");
            }
        }
        return sb.toString();
    }
}
