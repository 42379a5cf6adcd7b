package io.rdmaverbs.spring.boot;

import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsAutoConfiguration;
import io.rdmaverbs.spring.boot.info.VerbsInfoContributor;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.health.contributor.HealthContributor;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The Boot 4 layering of the module: the library packages ({@code io.rdmaverbs.spring.boot.health},
 * {@code .resources}, {@code .teardown}...) are plain types that the auto-configuration
 * ({@code io.rdmaverbs.spring.boot.autoconfigure..}) wires, never the other way round, as
 * {@code org.springframework.boot.jdbc.health} stands apart from {@code ...jdbc.autoconfigure}. Health,
 * meters and circuit breakers each have one package, for the verbs and the connections alike, and the
 * starter names no provider implementation outside the provider's choice. That verbs-core has no Spring
 * at all is verbs-core's own {@code LayeringTest}.
 *
 * <p>Each rule also fails when its subject matches no class (ArchUnit's default), so a renamed package
 * cannot leave a rule checking nothing.
 */
@AnalyzeClasses(packages = "io.rdmaverbs.spring.boot", importOptions = ImportOption.DoNotIncludeTests.class)
class BootLayeringTests {

    private static final String AUTOCONFIGURE = "io.rdmaverbs.spring.boot.autoconfigure..";
    private static final String HEALTH = "io.rdmaverbs.spring.boot.health..";
    private static final String METRICS = "io.rdmaverbs.spring.boot.metrics..";
    private static final String RESILIENCE = "io.rdmaverbs.spring.boot.resilience..";

    @ArchTest
    static final ArchRule libraryTypesNeverDependOnTheAutoConfiguration = noClasses().that()
            .resideOutsideOfPackage(AUTOCONFIGURE).should().dependOnClassesThat().resideInAPackage(AUTOCONFIGURE)
            .because("a library type is usable without the auto-configuration (in a test, in an application "
                    + "that wires its own beans): it takes what it needs as arguments");

    @ArchTest
    static final ArchRule autoConfigurationsAreFinal = classes().that().areAnnotatedWith(AutoConfiguration.class)
            .should().haveModifier(JavaModifier.FINAL)
            .because("an auto-configuration is wiring, not an extension point: an application replaces its "
                    + "beans (@ConditionalOnMissingBean), never subclasses it");

    @ArchTest
    static final ArchRule autoConfigurationsLiveInTheAutoConfigurationPackages = classes().that()
            .areAnnotatedWith(AutoConfiguration.class).should().resideInAPackage(AUTOCONFIGURE);

    @ArchTest
    static final ArchRule connectionsKnowNothingOfTheMessagingModelAboveThem = noClasses().that()
            .resideInAPackage("io.rdmaverbs.spring.boot.connections..").should().dependOnClassesThat()
            .resideInAPackage("io.rdmaverbs.spring.boot.messaging..")
            .because("messaging (endpoints, template, converters) is built on the listeners and peers: a listener "
                    + "learns of its endpoints through connections.ListenerHandlers");

    @ArchTest
    static final ArchRule healthContributorsLiveInTheHealthPackage = classes().that()
            .areAssignableTo(HealthContributor.class).should().resideInAPackage(HEALTH)
            .because("the verbs' health and the connections' health sit side by side, as "
                    + "org.springframework.boot.jdbc.health does for a DataSource");

    @ArchTest
    static final ArchRule metersAreMadeInTheMetricsPackage = noClasses().that()
            .resideOutsideOfPackages(METRICS, AUTOCONFIGURE)
            .should().dependOnClassesThat().resideInAPackage("io.micrometer.core..")
            .because("every meter of the starter, the graph's and the connections', is in one package the "
                    + "auto-configuration binds when Micrometer is there");

    @ArchTest
    static final ArchRule circuitBreakersAreMadeInTheResiliencePackage = noClasses().that()
            .resideOutsideOfPackages(RESILIENCE, AUTOCONFIGURE)
            .should().dependOnClassesThat().resideInAPackage("io.github.resilience4j.circuitbreaker..")
            .because("resilience4j-circuitbreaker is optional, and the device and peer breakers are one concern");

    @ArchTest
    static final ArchRule resilienceRegistriesAreCreatedInTheResiliencePackage = noClasses().that()
            .resideOutsideOfPackage(RESILIENCE)
            .should().callMethod(RetryRegistry.class, "ofDefaults")
            .orShould().callMethod(CircuitBreakerRegistry.class, "ofDefaults")
            .because("each registry of the starter is private to one type of .resilience, so an application's "
                    + "own registries are left alone");

    @ArchTest
    static final ArchRule healthAndMetricsAreOnlyWired = noClasses().that()
            .resideOutsideOfPackages(AUTOCONFIGURE, HEALTH, METRICS)
            .should().dependOnClassesThat().resideInAnyPackage(HEALTH, METRICS)
            .because("health and meters observe the library types; no library type needs them to work");

    @ArchTest
    static final ArchRule onlyTheProviderChoiceNamesTheSimulatedProvider = noClasses().that()
            .doNotHaveFullyQualifiedName(VerbsAutoConfiguration.class.getName())
            .should().dependOnClassesThat().resideInAPackage("io.rdmaverbs.verbs.provider.simulated..")
            .because("the starter asks the provider through the SPI (ConnectionVerbs.addresses for a device's "
                    + "address, say), whichever it is; only rdma.verbs.provider's choice makes one");

    @ArchTest
    static final ArchRule theNativeProviderIsNamedByTheProviderChoiceAndTheLibraryInfoOnly = noClasses().that()
            .doNotHaveFullyQualifiedName(VerbsAutoConfiguration.class.getName())
            .and().doNotHaveFullyQualifiedName(VerbsInfoContributor.class.getName())
            .should().dependOnClassesThat().resideInAPackage("io.rdmaverbs.verbs.provider.ffm..")
            .because("as for the simulated provider; the info contributor reports where libibverbs was loaded "
                    + "from, which the SPI does not say yet");

    @ArchTest
    static final ArchRule theDeviceOpenAndTheTeardownReachMicrometerOnlyThroughTheirObserver = noClasses().that()
            .resideInAnyPackage("io.rdmaverbs.spring.boot.resources..", "io.rdmaverbs.spring.boot.teardown..")
            .should().dependOnClassesThat().resideInAPackage("io.micrometer..")
            .because("Micrometer is optional: the declared resources and the teardown are observed through "
                    + "io.rdmaverbs.spring.boot.observation.LifecycleObserver, which has a no-op default");
}
