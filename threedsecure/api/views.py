"""HTTP for 3-D Secure scenarios and configurations: validate, call one service or selector, render."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from payments.accounts.models import MerchantAccount
from payments.accounts.selectors import merchant_account_find
from payments.rest.envelope import QueryValidationError
from payments.rest.fields import validated
from payments.rest.permissions import AllMerchantAccountsKey, ScopePermission, request_merchant_account
from payments.rest.query import KnownQueryParameters
from threedsecure.api.serializers import (
    ConfigurationCreateInput,
    ConfigurationListOutput,
    ConfigurationListQuery,
    ConfigurationOutput,
    ConfigurationUpdateInput,
    ScenarioCreateInput,
    ScenarioOutput,
    ScenarioUpdateInput,
)
from threedsecure.models import ThreeDSConfiguration, ThreeDSScenario
from threedsecure.selectors import (
    three_ds_configuration_get,
    three_ds_configuration_list,
    three_ds_scenario_get,
    three_ds_scenario_list,
)
from threedsecure.services import (
    three_ds_configuration_create,
    three_ds_configuration_delete,
    three_ds_configuration_update,
    three_ds_scenario_create,
    three_ds_scenario_delete,
    three_ds_scenario_update,
)


class ThreeDSScenarioViewSet(mixins.ListModelMixin, viewsets.GenericViewSet[ThreeDSScenario]):
    """3-D Secure scenarios: what the sandbox's issuer does for a payment that meets every condition.

    list:
        List 3-D Secure scenarios
        The merchant account's scenarios, newest first, a page at a time. A condition's card number shows as its
        BIN, a mask and its last 4. Needs the `three-ds-scenarios.read` scope.
    """

    scope_resource = "three-ds-scenarios"
    queryset = ThreeDSScenario.objects.none()  # names the model for the schema; requests use get_queryset()
    serializer_class = ScenarioOutput
    lookup_url_kwarg = "three_ds_scenario_id"
    http_method_names = ["get", "post", "put", "delete"]

    def get_queryset(self) -> QuerySet[ThreeDSScenario]:
        return three_ds_scenario_list(merchant_account=request_merchant_account(self.request))

    def get_object(self) -> ThreeDSScenario:
        return three_ds_scenario_get(
            merchant_account=request_merchant_account(self.request), id=self.kwargs["three_ds_scenario_id"]
        )

    @extend_schema(request=ScenarioCreateInput, responses={201: ScenarioOutput})
    def create(self, request: Request) -> Response:
        """Create a 3-D Secure scenario

        Conditions (amount, card number, buyer's email address, first and last name, external identifier; each
        optional, all set ones must hold) and the outcome the sandbox's issuer then gives: the 3DS version and the
        authentication status (`Y`, `A`, `N`, `R`, `U`, `C` or `timeout`); a challenge (`C`) also needs its
        `result` (`Y`, `N` or `timeout`), and no other status has one. The card number is kept only as a keyed
        digest, BIN and last 4. Needs the `three-ds-scenarios.write` scope.
        """
        serializer = ScenarioCreateInput(data=request.data)
        validated(serializer)
        scenario = three_ds_scenario_create(merchant_account=request_merchant_account(request), **serializer.parts())
        return Response(ScenarioOutput(scenario).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=ScenarioUpdateInput, responses={200: ScenarioOutput})
    def update(self, request: Request, three_ds_scenario_id: str) -> Response:
        """Update a 3-D Secure scenario

        Replaces the conditions, the outcome, or both, each as a whole; a part left out (or null) stays as it
        is. Needs the `three-ds-scenarios.write` scope. A scenario of another merchant account is a 404.
        """
        scenario = self.get_object()
        serializer = ScenarioUpdateInput(data=request.data)
        validated(serializer)
        scenario = three_ds_scenario_update(scenario=scenario, **serializer.parts())
        return Response(ScenarioOutput(scenario).data)

    @extend_schema(responses={204: None})
    def destroy(self, request: Request, three_ds_scenario_id: str) -> Response:
        """Delete a 3-D Secure scenario

        Removes the scenario: payments it matched meet the next matching scenario, or the sandbox's test cards.
        Needs the `three-ds-scenarios.write` scope. A scenario of another merchant account is a 404.
        """
        three_ds_scenario_delete(scenario=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


class ThreeDSConfigurationViewSet(viewsets.GenericViewSet[ThreeDSConfiguration]):
    """A merchant account's 3-D Secure configurations: `/merchant-accounts/{id}/three-ds-configurations[/{id}]`.

    Like the merchant accounts themselves, only for tokens of an API key made for every merchant account.
    """

    permission_classes = [AllMerchantAccountsKey, ScopePermission, KnownQueryParameters]
    scope_resource = "merchant-accounts"
    queryset = ThreeDSConfiguration.objects.none()  # names the model for the schema; requests use the account's
    serializer_class = ConfigurationOutput
    pagination_class = None  # upstream's list has no pages: an account has one per scheme and currency at most
    lookup_url_kwarg = "three_ds_configuration_id"
    query_parameters = ("currency",)

    def _account(self) -> MerchantAccount:
        return merchant_account_find(id=self.kwargs["merchant_account_id"])

    def get_object(self) -> ThreeDSConfiguration:
        return three_ds_configuration_get(merchant_account=self._account(), id=self.kwargs["three_ds_configuration_id"])

    @extend_schema(
        parameters=[OpenApiParameter("currency", str, description="Only configurations made for this currency.")],
        responses={200: ConfigurationListOutput},
    )
    def list(self, request: Request, merchant_account_id: str) -> Response:
        """List a merchant account's 3-D Secure configurations

        Every configuration of the merchant account, newest first, in one answer; `currency` keeps those made for
        that ISO 4217 currency. Needs the `merchant-accounts.read` scope.
        """
        query = ConfigurationListQuery(data=request.query_params.dict())
        if not query.is_valid():
            raise QueryValidationError(query.errors)
        items = three_ds_configuration_list(merchant_account=self._account(), **query.validated_data)
        return Response(ConfigurationListOutput({"items": list(items)}).data)

    @extend_schema(request=ConfigurationCreateInput, responses={201: ConfigurationOutput})
    def create(self, request: Request, merchant_account_id: str) -> Response:
        """Create a 3-D Secure configuration

        What a 3DS server is told about the merchant for one card scheme: the acquirer BIN (digits), the merchant's
        id at the acquirer, its name, ISO 3166-1 numeric country, category code (4 digits) and URL; for one
        currency, or for every currency without one of its own when `currency` is null. Needs the
        `merchant-accounts.write` scope.

        409: The merchant account already has a configuration for this scheme and currency.
        """
        account = self._account()
        data = validated(ConfigurationCreateInput(data=request.data))
        configuration = three_ds_configuration_create(merchant_account=account, **data)
        return Response(ConfigurationOutput(configuration).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=ConfigurationUpdateInput, responses={200: ConfigurationOutput})
    def update(self, request: Request, merchant_account_id: str, three_ds_configuration_id: str) -> Response:
        """Update a 3-D Secure configuration

        Changes the fields the body carries; a field left out or null stays as it is, except `currency`, whose
        null makes the configuration apply to every currency. Needs the `merchant-accounts.write` scope.

        409: The merchant account already has a configuration for this scheme and currency.
        """
        configuration = self.get_object()
        serializer = ConfigurationUpdateInput(data=request.data)
        validated(serializer)
        configuration = three_ds_configuration_update(configuration=configuration, **serializer.changes())
        return Response(ConfigurationOutput(configuration).data)

    @extend_schema(responses={204: None})
    def destroy(self, request: Request, merchant_account_id: str, three_ds_configuration_id: str) -> Response:
        """Delete a 3-D Secure configuration

        Removes the configuration. Needs the `merchant-accounts.write` scope.
        """
        three_ds_configuration_delete(configuration=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)
