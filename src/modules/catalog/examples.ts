import type { OperationExamples } from '../../rpc/examples.js';

/** A request and its answer for each of the module's operations, shown in the API reference (checked against the schemas by test/examples.test.ts). */
export const examples: OperationExamples = {
  'catalog.location.archiveLocation': {
    "input": {
      "id": "loc_01m8gegy4msdydw3xp0pp1d4kf"
    },
    "output": {
      "id": "loc_01m8gegy4msdydw3xp0pp1d4kf",
      "code": "CAFE-NORD",
      "name": "Café Nord bar",
      "kind": "cafe",
      "address": null,
      "timezone": "Europe/Berlin",
      "isActive": false,
      "archivedAt": "2026-11-28T06:47:15.943Z",
      "createdAt": "2026-11-28T06:47:15.838Z",
      "updatedAt": "2026-11-28T06:47:15.943Z"
    }
  },
  'catalog.location.createLocation': {
    "input": {
      "name": "Hafen green store",
      "code": "WH-HAFEN",
      "kind": "warehouse",
      "timezone": "Europe/Berlin"
    },
    "output": {
      "id": "loc_01m8gegxanhnknd322mexm7s5h",
      "code": "WH-HAFEN",
      "name": "Hafen green store",
      "kind": "warehouse",
      "address": null,
      "timezone": "Europe/Berlin",
      "isActive": true,
      "archivedAt": null,
      "createdAt": "2026-11-28T06:47:15.029Z",
      "updatedAt": "2026-11-28T06:47:15.029Z"
    }
  },
  'catalog.location.getLocation': {
    "input": {
      "id": "loc_01m8gemcxgxqyazcnskp4yapen"
    },
    "output": {
      "id": "loc_01m8gemcxgxqyazcnskp4yapen",
      "code": "ROASTERY",
      "name": "Roastery floor",
      "kind": "warehouse",
      "address": null,
      "timezone": null,
      "isActive": true,
      "archivedAt": null,
      "createdAt": "2026-11-28T06:49:09.292Z",
      "updatedAt": "2026-11-28T06:49:09.292Z"
    }
  },
  'catalog.location.listLocations': {
    "input": {},
    "output": {
      "items": [
        {
          "id": "loc_01m8gemcxgxqyazcnskp4yapen",
          "code": "ROASTERY",
          "name": "Roastery floor",
          "kind": "warehouse",
          "address": null,
          "timezone": null,
          "isActive": true,
          "archivedAt": null,
          "createdAt": "2026-11-28T06:49:09.292Z",
          "updatedAt": "2026-11-28T06:49:09.292Z"
        }
      ],
      "nextCursor": null
    }
  },
  'catalog.location.updateLocation': {
    "input": {
      "id": "loc_01m8gfaafah8195jvg55w1vjya",
      "name": "Renamed"
    },
    "output": {
      "id": "loc_01m8gfaafah8195jvg55w1vjya",
      "code": "Ltvux4i",
      "name": "Renamed",
      "kind": "warehouse",
      "address": null,
      "timezone": null,
      "isActive": true,
      "archivedAt": null,
      "createdAt": "2026-11-28T07:01:07.689Z",
      "updatedAt": "2026-11-28T07:01:07.930Z"
    }
  },
  'catalog.machine.getMachine': {
    "input": {
      "id": "mch_01m8gegykym80p7xwhyhycdsze"
    },
    "output": {
      "id": "mch_01m8gegykym80p7xwhyhycdsze",
      "code": "P12",
      "name": "Probat P12",
      "locationId": "loc_01m8gegy8p7dsg8g25q4v0b5tn",
      "brand": "Probat",
      "model": "P12 III",
      "machineType": "drum",
      "capacityKg": "12.000",
      "minBatchKg": "3.500",
      "maxBatchKg": "12.000",
      "connectivity": "bridge",
      "installedAt": "2021-03-15",
      "burnerRatingKw": null,
      "fuel": null,
      "isActive": true,
      "createdAt": "2026-11-28T06:47:16.318Z",
      "updatedAt": "2026-11-28T06:47:16.318Z"
    }
  },
  'catalog.machine.issueMachineBridgeToken': {
    "input": {
      "machineId": "mch_01m8geh5n37gbgcfafxndfnadm"
    },
    "output": {
      "id": "brt_01m8geh5nz1adswt6yegz8ahce",
      "token": "fcb_v4CUGzP-TpIZK7y3OQE4ANy6KZJJU4-Wd1Q0ulojka4",
      "machineId": "mch_01m8geh5n37gbgcfafxndfnadm",
      "expiresAt": "2026-12-28T06:47:23.583Z"
    }
  },
  'catalog.machine.listMachines': {
    "input": {
      "filter": {
        "q": "Roastery"
      }
    },
    "output": {
      "items": [
        {
          "id": "mch_01m8geh41e8tzt0crvb1aneb2d",
          "code": "MCH-9",
          "name": "Giesen W15",
          "locationId": "loc_01m8geh3ynnjqenhqph4ane4q6",
          "brand": "Giesen",
          "model": null,
          "machineType": "drum",
          "capacityKg": null,
          "minBatchKg": null,
          "maxBatchKg": null,
          "connectivity": "bridge",
          "installedAt": null,
          "burnerRatingKw": null,
          "fuel": null,
          "isActive": true,
          "createdAt": "2026-11-28T06:47:21.901Z",
          "updatedAt": "2026-11-28T06:47:21.901Z"
        },
        {
          "id": "mch_01m8geh425442wv17qebp551yx",
          "code": "MCH-10",
          "name": "Sivetz 25",
          "locationId": "loc_01m8geh3ynnjqenhqph4ane4q6",
          "brand": "Sivetz",
          "model": null,
          "machineType": "fluid_bed",
          "capacityKg": null,
          "minBatchKg": null,
          "maxBatchKg": null,
          "connectivity": "none",
          "installedAt": null,
          "burnerRatingKw": null,
          "fuel": null,
          "isActive": false,
          "createdAt": "2026-11-28T06:47:21.923Z",
          "updatedAt": "2026-11-28T06:47:21.976Z"
        },
        {
          "id": "mch_01m8geh42zcdchmvzr5qq0eywk",
          "code": "MCH-11",
          "name": "Ikawa Pro100 sample roaster",
          "locationId": "loc_01m8geh408cftbm63eq2qtvdz0",
          "brand": null,
          "model": "Pro100",
          "machineType": "sample",
          "capacityKg": null,
          "minBatchKg": null,
          "maxBatchKg": null,
          "connectivity": "cloud_api",
          "installedAt": null,
          "burnerRatingKw": null,
          "fuel": null,
          "isActive": true,
          "createdAt": "2026-11-28T06:47:21.948Z",
          "updatedAt": "2026-11-28T06:47:21.948Z"
        }
      ],
      "nextCursor": null
    }
  },
  'catalog.machine.registerMachine': {
    "input": {
      "name": "Probat P12",
      "code": "P12",
      "locationId": "loc_01m8gegy8p7dsg8g25q4v0b5tn",
      "brand": "Probat",
      "model": "P12 III",
      "machineType": "drum",
      "capacityKg": 12,
      "minBatchKg": "3.5",
      "maxBatchKg": 12,
      "connectivity": "bridge",
      "installedAt": "2021-03-15"
    },
    "output": {
      "id": "mch_01m8gegykym80p7xwhyhycdsze",
      "code": "P12",
      "name": "Probat P12",
      "locationId": "loc_01m8gegy8p7dsg8g25q4v0b5tn",
      "brand": "Probat",
      "model": "P12 III",
      "machineType": "drum",
      "capacityKg": "12.000",
      "minBatchKg": "3.500",
      "maxBatchKg": "12.000",
      "connectivity": "bridge",
      "installedAt": "2021-03-15",
      "burnerRatingKw": null,
      "fuel": null,
      "isActive": true,
      "createdAt": "2026-11-28T06:47:16.318Z",
      "updatedAt": "2026-11-28T06:47:16.318Z"
    }
  },
  'catalog.machine.updateMachine': {
    "input": {
      "id": "mch_01m8geh29srn49tyr4a3qvhnr4",
      "name": "Loring Falcon",
      "machineType": "recirculating",
      "model": null,
      "connectivity": "cloud_api",
      "installedAt": "2022-12-31"
    },
    "output": {
      "id": "mch_01m8geh29srn49tyr4a3qvhnr4",
      "code": "MCH-5",
      "name": "Loring Falcon",
      "locationId": null,
      "brand": "Loring",
      "model": null,
      "machineType": "recirculating",
      "capacityKg": null,
      "minBatchKg": null,
      "maxBatchKg": null,
      "connectivity": "cloud_api",
      "installedAt": "2022-12-31",
      "burnerRatingKw": null,
      "fuel": null,
      "isActive": true,
      "createdAt": "2026-11-28T06:47:20.119Z",
      "updatedAt": "2026-11-28T06:47:20.149Z"
    }
  },
  'catalog.party.createPartner': {
    "input": {
      "name": "Huila Traders",
      "code": "HUILA",
      "types": [
        "supplier",
        "importer",
        "exporter"
      ]
    },
    "output": {
      "id": "ptn_01m8gej0qcm96hxdss8mtbpj7z",
      "code": "HUILA",
      "name": "Huila Traders",
      "types": [
        "supplier",
        "importer",
        "exporter"
      ],
      "country": null,
      "defaultCurrency": null,
      "paymentTermsDays": null,
      "contactEmail": null,
      "contactPhone": null,
      "website": null,
      "notes": null,
      "isActive": true,
      "createdAt": "2026-11-28T06:47:51.255Z",
      "updatedAt": "2026-11-28T06:47:51.255Z"
    }
  },
  'catalog.party.createProducer': {
    "input": {
      "name": "Finca El Paraíso",
      "code": "FEP",
      "kind": "farm",
      "partnerId": "ptn_01m8gej4zr67d3990xx2ysy97f",
      "country": "CO",
      "region": "Cauca",
      "subregion": "Piendamó",
      "altitudeMinM": 1850,
      "altitudeMaxM": 1950,
      "latitude": 2.640123,
      "longitude": -76.528456,
      "varieties": [
        "Castillo",
        "Geisha"
      ],
      "processMethods": [
        "thermal shock washed"
      ],
      "farmSizeHa": 12.5
    },
    "output": {
      "id": "pdr_01m8gej53phd30skt64bpkg5ry",
      "code": "FEP",
      "name": "Finca El Paraíso",
      "kind": "farm",
      "partnerId": "ptn_01m8gej4zr67d3990xx2ysy97f",
      "country": "CO",
      "region": "Cauca",
      "subregion": "Piendamó",
      "altitudeMinM": 1850,
      "altitudeMaxM": 1950,
      "latitude": 2.640123,
      "longitude": -76.528456,
      "varieties": [
        "Castillo",
        "Geisha"
      ],
      "processMethods": [
        "thermal shock washed"
      ],
      "farmSizeHa": 12.5,
      "isActive": true,
      "createdAt": "2026-11-28T06:47:55.735Z",
      "updatedAt": "2026-11-28T06:47:55.735Z"
    }
  },
  'catalog.party.getPartner': {
    "input": {
      "id": "ptn_01m8gehz57sc108763erp3v3td"
    },
    "output": {
      "id": "ptn_01m8gehz57sc108763erp3v3td",
      "code": "NGI",
      "name": "Nordic Green Importers",
      "types": [
        "importer",
        "warehouse"
      ],
      "country": "SE",
      "defaultCurrency": "EUR",
      "paymentTermsDays": 30,
      "contactEmail": "trade@ngi.example",
      "contactPhone": "+46 8 123 45",
      "website": "https://ngi.example",
      "notes": "Bonded warehouse in Gothenburg",
      "isActive": true,
      "createdAt": "2026-11-28T06:47:49.654Z",
      "updatedAt": "2026-11-28T06:47:49.654Z"
    }
  },
  'catalog.party.getProducer': {
    "input": {
      "id": "pdr_01m8gej53phd30skt64bpkg5ry"
    },
    "output": {
      "id": "pdr_01m8gej53phd30skt64bpkg5ry",
      "code": "FEP",
      "name": "Finca El Paraíso",
      "kind": "farm",
      "partnerId": "ptn_01m8gej4zr67d3990xx2ysy97f",
      "country": "CO",
      "region": "Cauca",
      "subregion": "Piendamó",
      "altitudeMinM": 1850,
      "altitudeMaxM": 1950,
      "latitude": 2.640123,
      "longitude": -76.528456,
      "varieties": [
        "Castillo",
        "Geisha"
      ],
      "processMethods": [
        "thermal shock washed"
      ],
      "farmSizeHa": 12.5,
      "isActive": true,
      "createdAt": "2026-11-28T06:47:55.735Z",
      "updatedAt": "2026-11-28T06:47:55.735Z"
    }
  },
  'catalog.party.listPartners': {
    "input": {
      "filter": {
        "q": "Kaffa Importers"
      },
      "page": {
        "limit": 50
      }
    },
    "output": {
      "items": [
        {
          "id": "ptn_01m8gej47nh2bgx8093zgyagzh",
          "code": "KAFFA",
          "name": "Kaffa Importers",
          "types": [
            "broker"
          ],
          "country": null,
          "defaultCurrency": null,
          "paymentTermsDays": null,
          "contactEmail": null,
          "contactPhone": null,
          "website": null,
          "notes": null,
          "isActive": true,
          "createdAt": "2026-11-28T06:47:54.868Z",
          "updatedAt": "2026-11-28T06:47:54.868Z"
        },
        {
          "id": "ptn_01m8gej49th80c5976zm5wkrsp",
          "code": "ANDES",
          "name": "Andes Green Coffee",
          "types": [
            "broker"
          ],
          "country": null,
          "defaultCurrency": null,
          "paymentTermsDays": null,
          "contactEmail": null,
          "contactPhone": null,
          "website": null,
          "notes": null,
          "isActive": true,
          "createdAt": "2026-11-28T06:47:54.935Z",
          "updatedAt": "2026-11-28T06:47:54.935Z"
        },
        {
          "id": "ptn_01m8gej4b13ayxzmxm0z98rddf",
          "code": "RIFT",
          "name": "Rift Valley Exports",
          "types": [
            "broker"
          ],
          "country": null,
          "defaultCurrency": null,
          "paymentTermsDays": null,
          "contactEmail": null,
          "contactPhone": null,
          "website": null,
          "notes": null,
          "isActive": true,
          "createdAt": "2026-11-28T06:47:54.977Z",
          "updatedAt": "2026-11-28T06:47:54.977Z"
        }
      ],
      "nextCursor": null
    }
  },
  'catalog.party.listProducers': {
    "input": {
      "filter": {
        "q": "LSTF"
      }
    },
    "output": {
      "items": [
        {
          "id": "pdr_01m8gejay2myyhd1yffq3qkz67",
          "code": "ALTO",
          "name": "Finca El Alto",
          "kind": "farm",
          "partnerId": null,
          "country": "HN",
          "region": "Marcala",
          "subregion": null,
          "altitudeMinM": null,
          "altitudeMaxM": null,
          "latitude": null,
          "longitude": null,
          "varieties": [],
          "processMethods": [],
          "farmSizeHa": null,
          "isActive": true,
          "createdAt": "2026-11-28T06:48:01.730Z",
          "updatedAt": "2026-11-28T06:48:01.730Z"
        },
        {
          "id": "pdr_01m8gejb2d6htnm921egphgc0e",
          "code": "COMARCA",
          "name": "Cooperativa Marcala",
          "kind": "cooperative",
          "partnerId": "ptn_01m8gejaw5e838fmty14vbdsn4",
          "country": "HN",
          "region": null,
          "subregion": null,
          "altitudeMinM": null,
          "altitudeMaxM": null,
          "latitude": null,
          "longitude": null,
          "varieties": [],
          "processMethods": [],
          "farmSizeHa": null,
          "isActive": true,
          "createdAt": "2026-11-28T06:48:01.840Z",
          "updatedAt": "2026-11-28T06:48:01.840Z"
        },
        {
          "id": "pdr_01m8gejbbb4dzhwnrkxyk3mj1w",
          "code": "STROSA",
          "name": "Santa Rosa Estate",
          "kind": "estate",
          "partnerId": "ptn_01m8gejaw5e838fmty14vbdsn4",
          "country": "GT",
          "region": null,
          "subregion": null,
          "altitudeMinM": null,
          "altitudeMaxM": null,
          "latitude": null,
          "longitude": null,
          "varieties": [],
          "processMethods": [],
          "farmSizeHa": null,
          "isActive": false,
          "createdAt": "2026-11-28T06:48:02.153Z",
          "updatedAt": "2026-11-28T06:48:02.465Z"
        }
      ],
      "nextCursor": null
    }
  },
  'catalog.party.updatePartner': {
    "input": {
      "id": "ptn_01m8gej2gv4y07tzsxea0p08xj",
      "name": "Nordic Green Importers AB",
      "types": [
        "supplier",
        "exporter"
      ],
      "country": null,
      "paymentTermsDays": 60,
      "isActive": false
    },
    "output": {
      "id": "ptn_01m8gej2gv4y07tzsxea0p08xj",
      "code": "UPD-PTN",
      "name": "Nordic Green Importers AB",
      "types": [
        "supplier",
        "exporter"
      ],
      "country": null,
      "defaultCurrency": null,
      "paymentTermsDays": 60,
      "contactEmail": null,
      "contactPhone": null,
      "website": null,
      "notes": "Bright, jammy; pick for filter",
      "isActive": false,
      "createdAt": "2026-11-28T06:47:53.114Z",
      "updatedAt": "2026-11-28T06:47:53.233Z"
    }
  },
  'catalog.party.updateProducer': {
    "input": {
      "id": "pdr_01m8gej9wj137wns2yfnt0kac4",
      "kind": "cooperative",
      "region": null,
      "latitude": -6.000001,
      "longitude": 38.2,
      "varieties": [],
      "processMethods": [
        "natural",
        "washed"
      ],
      "farmSizeHa": "40.125",
      "isActive": false
    },
    "output": {
      "id": "pdr_01m8gej9wj137wns2yfnt0kac4",
      "code": "KOCH",
      "name": "Washing station Kochere",
      "kind": "cooperative",
      "partnerId": null,
      "country": null,
      "region": null,
      "subregion": null,
      "altitudeMinM": null,
      "altitudeMaxM": null,
      "latitude": -6.000001,
      "longitude": 38.2,
      "varieties": [],
      "processMethods": [
        "natural",
        "washed"
      ],
      "farmSizeHa": 40.125,
      "isActive": false,
      "createdAt": "2026-11-28T06:48:00.657Z",
      "updatedAt": "2026-11-28T06:48:00.886Z"
    }
  },
  'catalog.product.createProduct': {
    "input": {
      "sku": "BULK-2",
      "name": "Decaf 5 kg",
      "format": "bulk",
      "currency": "USD",
      "profileId": "prf_01m8gem0w9k2v3c4x5z6b7n8q1",
      "roastLevel": "medium"
    },
    "output": {
      "id": "prd_01m8gem1f3dh886g1h0tkgz5yt",
      "sku": "BULK-2",
      "name": "Decaf 5 kg",
      "format": "bulk",
      "netWeightKg": null,
      "listPrice": null,
      "currency": "USD",
      "barcode": null,
      "isActive": true,
      "profileId": "prf_01m8gem0w9k2v3c4x5z6b7n8q1",
      "blendId": null,
      "roastLevel": "medium",
      "createdAt": "2026-11-28T06:48:57.569Z",
      "updatedAt": "2026-11-28T06:48:57.569Z"
    }
  },
  'catalog.product.getProduct': {
    "input": {
      "id": "prd_01m8gekzkwwd0ghy4xfepykts3"
    },
    "output": {
      "id": "prd_01m8gekzkwwd0ghy4xfepykts3",
      "sku": "ETH-250-WB",
      "name": "Ethiopia Guji 250 g",
      "format": "whole_bean",
      "netWeightKg": "0.250",
      "listPrice": "12.9000",
      "currency": "EUR",
      "barcode": "1042",
      "isActive": true,
      "profileId": null,
      "blendId": null,
      "roastLevel": null,
      "createdAt": "2026-11-28T06:48:55.637Z",
      "updatedAt": "2026-11-28T06:48:55.637Z"
    }
  },
  'catalog.product.listProducts': {
    "input": {},
    "output": {
      "items": [
        {
          "id": "prd_01m8gem99sm45f0kfhtg9c8zaf",
          "sku": "ESP-1",
          "name": "Espresso Blend",
          "format": "ground_espresso",
          "netWeightKg": null,
          "listPrice": null,
          "currency": null,
          "barcode": "50000001",
          "isActive": true,
          "profileId": null,
          "blendId": null,
          "roastLevel": null,
          "createdAt": "2026-11-28T06:49:05.593Z",
          "updatedAt": "2026-11-28T06:49:05.593Z"
        },
        {
          "id": "prd_01m8gem9eyn2w68ep1qzmbewv9",
          "sku": "FLT-1",
          "name": "Filter Kenya",
          "format": "ground_filter",
          "netWeightKg": null,
          "listPrice": null,
          "currency": null,
          "barcode": "50000002",
          "isActive": false,
          "profileId": null,
          "blendId": null,
          "roastLevel": null,
          "createdAt": "2026-11-28T06:49:05.757Z",
          "updatedAt": "2026-11-28T06:49:06.085Z"
        },
        {
          "id": "prd_01m8gem9kv6b5x3pv9w47pkmcz",
          "sku": "WB-1",
          "name": "Kenya Beans",
          "format": "whole_bean",
          "netWeightKg": null,
          "listPrice": null,
          "currency": null,
          "barcode": "70000003",
          "isActive": true,
          "profileId": null,
          "blendId": null,
          "roastLevel": null,
          "createdAt": "2026-11-28T06:49:05.906Z",
          "updatedAt": "2026-11-28T06:49:05.906Z"
        }
      ],
      "nextCursor": null
    }
  },
  'catalog.product.updateProduct': {
    "input": {
      "id": "prd_01m8gem6cchc7jt4vpcmtfvge1",
      "name": "Drip bags x10",
      "format": "ground_filter",
      "netWeightKg": null,
      "barcode": null,
      "listPrice": 7,
      "currency": "GBP",
      "isActive": false
    },
    "output": {
      "id": "prd_01m8gem6cchc7jt4vpcmtfvge1",
      "sku": "DRIP-10",
      "name": "Drip bags x10",
      "format": "ground_filter",
      "netWeightKg": null,
      "listPrice": "7.0000",
      "currency": "GBP",
      "barcode": null,
      "isActive": false,
      "profileId": null,
      "blendId": null,
      "roastLevel": null,
      "createdAt": "2026-11-28T06:49:02.588Z",
      "updatedAt": "2026-11-28T06:49:02.739Z"
    }
  },
  "catalog.party.createPlot": {
    "input": {
      "producerId": "pdr_01m8gf0z1c3e5g7j9l1n3p5r7t",
      "name": "Gerba hill",
      "areaHa": 36,
      "geometry": {
        "type": "Polygon",
        "coordinates": [
          [
            [
              38.738612,
              6.560413
            ],
            [
              38.744035,
              6.560413
            ],
            [
              38.744035,
              6.565836
            ],
            [
              38.738612,
              6.565836
            ],
            [
              38.738612,
              6.560413
            ]
          ]
        ]
      },
      "productionFrom": "2024-10-01",
      "productionTo": "2025-02-28"
    },
    "output": {
      "id": "plot_01m8gh2k3r5t7v9x1z3b5d7f9h",
      "producerId": "pdr_01m8gf0z1c3e5g7j9l1n3p5r7t",
      "name": "Gerba hill",
      "areaHa": 36,
      "geometry": {
        "type": "Polygon",
        "coordinates": [
          [
            [
              38.738612,
              6.560413
            ],
            [
              38.744035,
              6.560413
            ],
            [
              38.744035,
              6.565836
            ],
            [
              38.738612,
              6.565836
            ],
            [
              38.738612,
              6.560413
            ]
          ]
        ]
      },
      "computedAreaHa": 36.21,
      "warnings": [],
      "productionFrom": "2024-10-01",
      "productionTo": "2025-02-28",
      "createdAt": "2026-11-28T07:02:11.412Z"
    }
  },
  "catalog.party.getPlot": {
    "input": {
      "id": "plot_01m8gh2k3r5t7v9x1z3b5d7f9h"
    },
    "output": {
      "id": "plot_01m8gh2k3r5t7v9x1z3b5d7f9h",
      "producerId": "pdr_01m8gf0z1c3e5g7j9l1n3p5r7t",
      "name": "Gerba hill",
      "areaHa": 36,
      "geometry": {
        "type": "Polygon",
        "coordinates": [
          [
            [
              38.738612,
              6.560413
            ],
            [
              38.744035,
              6.560413
            ],
            [
              38.744035,
              6.565836
            ],
            [
              38.738612,
              6.565836
            ],
            [
              38.738612,
              6.560413
            ]
          ]
        ]
      },
      "computedAreaHa": 36.21,
      "warnings": [],
      "productionFrom": "2024-10-01",
      "productionTo": "2025-02-28",
      "createdAt": "2026-11-28T07:02:11.412Z"
    }
  },
  "catalog.party.listPlots": {
    "input": {
      "filter": {
        "producerId": "pdr_01m8gf0z1c3e5g7j9l1n3p5r7t"
      }
    },
    "output": {
      "items": [
        {
          "id": "plot_01m8gh2k3r5t7v9x1z3b5d7f9h",
          "producerId": "pdr_01m8gf0z1c3e5g7j9l1n3p5r7t",
          "name": "Gerba hill",
          "areaHa": 36,
          "geometry": {
            "type": "Polygon",
            "coordinates": [
              [
                [
                  38.738612,
                  6.560413
                ],
                [
                  38.744035,
                  6.560413
                ],
                [
                  38.744035,
                  6.565836
                ],
                [
                  38.738612,
                  6.565836
                ],
                [
                  38.738612,
                  6.560413
                ]
              ]
            ]
          },
          "computedAreaHa": 36.21,
          "warnings": [],
          "productionFrom": "2024-10-01",
          "productionTo": "2025-02-28",
          "createdAt": "2026-11-28T07:02:11.412Z"
        },
        {
          "id": "plot_01m8gh2m9q1s3u5w7y9a1c3e5g",
          "producerId": "pdr_01m8gf0z1c3e5g7j9l1n3p5r7t",
          "name": "Garden",
          "areaHa": 2,
          "geometry": {
            "type": "Point",
            "coordinates": [
              38.741235,
              6.571118
            ]
          },
          "computedAreaHa": null,
          "warnings": [],
          "productionFrom": null,
          "productionTo": null,
          "createdAt": "2026-11-28T07:02:12.003Z"
        }
      ],
      "nextCursor": null
    }
  },
};
