package io.rdmaverbs.spring.boot;

import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import org.springframework.boot.autoconfigure.AutoConfiguration;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The Boot 4 layering of the module: the library packages ({@code io.rdmaverbs.spring.boot.health},
 * {@code .resources}, {@code .teardown}...) are plain types that the auto-configuration
 * ({@code io.rdmaverbs.spring.boot.autoconfigure..}) wires, never the other way round, as
 * {@code org.springframework.boot.jdbc.health} stands apart from {@code ...jdbc.autoconfigure}. That verbs-core
 * has no Spring at all is verbs-core's own {@code LayeringTest}.
 *
 * <p>Each rule also fails when its subject matches no class (ArchUnit's default), so a renamed package
 * cannot leave a rule checking nothing.
 */
@AnalyzeClasses(packages = "io.rdmaverbs.spring.boot", importOptions = ImportOption.DoNotIncludeTests.class)
class BootLayeringTests {

    private static final String AUTOCONFIGURE = "io.rdmaverbs.spring.boot.autoconfigure..";

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
    static final ArchRule theDeviceOpenAndTheTeardownReachMicrometerOnlyThroughTheirObserver = noClasses().that()
            .resideInAnyPackage("io.rdmaverbs.spring.boot.resources..", "io.rdmaverbs.spring.boot.teardown..")
            .should().dependOnClassesThat().resideInAPackage("io.micrometer..")
            .because("Micrometer is optional: the declared resources and the teardown are observed through "
                    + "io.rdmaverbs.spring.boot.observation.LifecycleObserver, which has a no-op default");
}
