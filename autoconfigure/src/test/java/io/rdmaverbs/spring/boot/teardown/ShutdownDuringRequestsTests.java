package io.rdmaverbs.spring.boot.teardown;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.Verbs;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests and the teardown never overlap: a request in flight when the shutdown begins, and every
 * request that arrives while it goes on, either runs with the queue pair still open or is not handled
 * at all (refused, or answered 503 by a graceful shutdown). What counts is what the handler saw, not
 * whether its answer reached the client: an immediate shutdown may drop the connection of a request in
 * flight, but its handler thread runs on. With {@code server.shutdown=immediate} nothing drains the
 * requests before the lifecycle stops, so only the teardown's phase (below the web server's stop) keeps
 * the two apart.
 */
class ShutdownDuringRequestsTests {

    private static final Duration IN_FLIGHT = Duration.ofMillis(800);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @ParameterizedTest(name = "server.shutdown={0}")
    @ValueSource(strings = { "immediate", "graceful" })
    void requestsInFlightOrArrivingDuringShutdownSeeTheQueuePairOpen(String shutdown) throws Exception {
        QueuePairController.reset();
        ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class).run(
                "--server.port=0", "--server.shutdown=" + shutdown, "--rdma.verbs.provider=simulated",
                "--rdma.verbs.simulated.devices.rxe0.profile=rxe", "--rdma.verbs.teardown.timeout=1s",
                "--spring.config.import=classpath:traffic.properties", "--spring.main.banner-mode=off");
        Verbs verbs = context.getBean(Verbs.class);
        VerbsTeardown teardown = context.getBean(VerbsTeardown.class);
        String base = "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();
        assertThat(get(base + "/qp")).isEqualTo("open");

        http.sendAsync(HttpRequest.newBuilder(URI.create(base + "/qp?holdMillis=" + IN_FLIGHT.toMillis())).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(QueuePairController.entered.await(10, TimeUnit.SECONDS)).as("the slow request began").isTrue();
        Thread closing = Thread.ofPlatform().start(context::close);

        int sent = 0;
        while (closing.isAlive()) {
            try {
                sent++;
                get(base + "/qp");
            } catch (IOException notAccepted) {
                // The server no longer takes requests: what the test wants once the teardown may run.
            }
        }
        closing.join();

        assertThat(QueuePairController.held.await(0, TimeUnit.SECONDS))
                .as("the request in flight was handled to its end before the context closed").isTrue();
        assertThat(sent).as("requests sent during the shutdown").isPositive();
        assertThat(QueuePairController.seen).as("what each handler saw of queue pair 'a'").isNotEmpty()
                .containsOnly("open");
        assertThat(teardown.report()).hasValueSatisfying(r -> assertThat(r.isComplete()).isTrue());
        assertThat(verbs.resources()).isEmpty();
    }

    private String get(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(QueuePairController.class)
    static class Application {
    }

    @RestController
    static class QueuePairController {

        static volatile CountDownLatch entered = new CountDownLatch(1);
        static volatile CountDownLatch held = new CountDownLatch(1);
        static final List<String> seen = new CopyOnWriteArrayList<>();

        private final QueuePair qp;

        QueuePairController(@Qualifier("a") QueuePair qp) {
            this.qp = qp;
        }

        static void reset() {
            entered = new CountDownLatch(1);
            held = new CountDownLatch(1);
            seen.clear();
        }

        /** Whether queue pair {@code a} is open, after holding the request for up to {@code holdMillis}. */
        @GetMapping("/qp")
        String state(@RequestParam(defaultValue = "0") long holdMillis) {
            if (holdMillis > 0) {
                entered.countDown();
                try {
                    Thread.sleep(holdMillis);
                } catch (InterruptedException e) {
                    // An immediate shutdown interrupts the request threads; a handler may still go on.
                    Thread.currentThread().interrupt();
                }
            }
            String state = qp.isOpen() ? "open" : "closed";
            seen.add(state);
            if (holdMillis > 0) {
                held.countDown();
            }
            return state;
        }
    }
}
