package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Brings up, in the test's own JVM and with no YAML, a listener and a peer connected to it for each name,
 * on the simulated provider ({@link SimulatedVerbs}, one rxe device unless the class says otherwise): the
 * application's {@code @RdmaEndpoint("<name>")} beans take what its {@code RdmaTemplate} sends to the peer
 * {@code <name>}, over a real session through the simulated connection manager. The peers are
 * {@code required}, so the context is ready only once each is connected. The
 * {@link RdmaEndpointTestHarness} bean records what the endpoints received, as Spring AMQP's
 * {@code RabbitListenerTestHarness} does.
 *
 * <pre>{@code
 * @SpringBootTest
 * @SimulatedConnections("orders")
 * class OrderEndpointTests {
 *
 *     @Autowired RdmaTemplate template;
 *     @Autowired RdmaEndpointTestHarness harness;
 *
 *     @Test
 *     void placesTheOrder() {
 *         template.convertAndSend("orders", "place", new Order("disk", 2));
 *         assertThat(harness.awaitInvocation("orders", "place", Duration.ofSeconds(5)).payload())
 *                 .isEqualTo(new Order("disk", 2));
 *     }
 * }
 * }</pre>
 *
 * Each listener gets the first simulated device's address and port 7471, 7472... in the order of the names,
 * over what the application's configuration says (its {@code device} is blanked); the other settings of a
 * listener or peer the application declares under the same name stay. A test slice needs
 * {@link AutoConfigureSimulatedVerbs} as well, which imports the connections' and messaging's
 * auto-configurations.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@SimulatedVerbs
public @interface SimulatedConnections {

    /** The names: each a listener and a peer of that name connected to it. */
    String[] value();
}
