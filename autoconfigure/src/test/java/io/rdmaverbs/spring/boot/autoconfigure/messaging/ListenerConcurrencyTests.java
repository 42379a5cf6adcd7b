package io.rdmaverbs.spring.boot.autoconfigure.messaging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.rdmaverbs.spring.boot.messaging.RdmaEndpoint;
import io.rdmaverbs.spring.boot.messaging.RdmaMessageMapping;
import io.rdmaverbs.spring.boot.messaging.RdmaReplyTimeoutException;
import io.rdmaverbs.spring.boot.messaging.RdmaTemplate;
import io.rdmaverbs.verbs.connection.Message;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How many messages a listener handles at once: on virtual threads up to its {@code concurrency} by
 * default, one at a time per connection in arrival order when it is {@code ordered}.
 */
class ListenerConcurrencyTests {

    private static final String LISTENER = "rdma.verbs.connections.listeners.slow";

    @Test
    void anUnorderedListenerHandlesUpToItsConcurrencyAtOnceOnVirtualThreads() throws Exception {
        Loopback.of("slow").withBean(Slow.class).withPropertyValues(LISTENER + ".concurrency=3").run(context -> {
            Slow slow = context.getBean(Slow.class);

            List<String> replies = requests(context.getBean(RdmaTemplate.class), 8);

            assertThat(replies).hasSize(8);
            assertThat(slow.peak.get()).as("handled at once").isEqualTo(3);
            assertThat(slow.threads).allMatch(virtual -> virtual);
        });
    }

    @Test
    void anOrderedListenerHandlesOneMessageOfAConnectionAtATimeInArrivalOrder() throws Exception {
        Loopback.of("slow").withBean(Slow.class).withPropertyValues(LISTENER + ".ordered=true").run(context -> {
            Slow slow = context.getBean(Slow.class);
            RdmaTemplate template = context.getBean(RdmaTemplate.class);

            List<String> replies = requests(template, 6);

            assertThat(replies).hasSize(6);
            assertThat(slow.peak.get()).as("handled at once").isEqualTo(1);
            assertThat(slow.order).containsExactly("0", "1", "2", "3", "4", "5");
        });
    }

    @Test
    void aReplyLaterThanTheTimeoutIsARdmaReplyTimeoutException() {
        Loopback.of("slow").withBean(Slow.class).run(context -> {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);

            assertThatThrownBy(() -> template.sendAndReceive("slow", "slow", Message.of("late"),
                    Duration.ofMillis(20))).isInstanceOf(RdmaReplyTimeoutException.class)
                    .hasMessage("RDMA peer 'slow': no reply to route 'slow' within 20 ms");
        });
    }

    /** Sends {@code n} requests at once, then waits for every reply. */
    private static List<String> requests(RdmaTemplate template, int n) throws Exception {
        List<CompletableFuture<Message>> pending = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            pending.add(template.sendAndReceiveAsync("slow", "slow", Message.of(Integer.toString(i))));
        }
        List<String> replies = new ArrayList<>();
        for (CompletableFuture<Message> f : pending) {
            replies.add(f.get(30, TimeUnit.SECONDS).asString());
        }
        return replies;
    }

    @RdmaEndpoint("slow")
    static class Slow {

        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger peak = new AtomicInteger();
        final List<String> order = new CopyOnWriteArrayList<>();
        final List<Boolean> threads = new CopyOnWriteArrayList<>();

        @RdmaMessageMapping("slow")
        String slow(String text) throws InterruptedException {
            order.add(text);
            threads.add(Thread.currentThread().isVirtual());
            peak.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                Thread.sleep(150);
            } finally {
                running.decrementAndGet();
            }
            return text;
        }
    }
}
